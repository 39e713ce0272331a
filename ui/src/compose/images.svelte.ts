import type { PromptAttachment } from '../lib/bindings';
import { imageFiles, readImage, refusal, type PendingImage } from '../lib/images';

/** The images waiting in the composer for the next prompt. */
export class ImageTray {
  items = $state<PendingImage[]>([]);
  /** Why the last file given was not taken (shown inline until the next add). */
  error = $state<string | null>(null);

  async add(files: File[]): Promise<void> {
    this.error = null;
    for (const file of files) {
      const why = refusal(file);
      if (why) {
        this.error = why;
        continue;
      }
      this.items.push(await readImage(file));
    }
  }

  /** A paste or drop: takes its image files (and keeps text pastes as they are). */
  async fromTransfer(event: ClipboardEvent | DragEvent): Promise<void> {
    const data = 'clipboardData' in event ? event.clipboardData : event.dataTransfer;
    const files = imageFiles(data);
    if (!files.length) return;
    event.preventDefault();
    await this.add(files);
  }

  remove(id: number): void {
    this.items = this.items.filter((i) => i.id !== id);
  }

  /** The images for the prompt being sent; the tray is empty after. */
  take(): PendingImage[] {
    const out = this.items;
    this.items = [];
    this.error = null;
    return out;
  }

  /** Images a failed send gives back, before any added since. */
  putBack(taken: PendingImage[]): void {
    const now = this.items;
    this.items = [...taken.filter((t) => !now.some((i) => i.id === t.id)), ...now];
  }
}

/** What `taken` images attach to a prompt. */
export const imageAttachments = (taken: readonly PendingImage[]): PromptAttachment[] => taken.map((i) => i.attachment);
