import type { PromptAttachment } from './bindings';

/** The image types both vendors take (Anthropic and OpenAI vision docs, read 2026-12-06). */
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;
/** The `accept` of the pick button. */
export const IMAGE_ACCEPT = IMAGE_TYPES.join(',');
/** Bytes of one image at most (the host refuses more; OpenAI's per-image limit). */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/** An image waiting in the composer: its attachment and a URL for its thumbnail. */
export interface PendingImage {
  id: number;
  name: string;
  attachment: Extract<PromptAttachment, { kind: 'image' }>;
  url: string;
}

let nextId = 1;

/** Why `file` cannot be attached, or null. */
export function refusal(file: { name: string; type: string; size: number }): string | null {
  if (!(IMAGE_TYPES as readonly string[]).includes(file.type)) {
    return `${file.name || 'That file'} is not a PNG, JPEG, WebP or GIF image`;
  }
  if (file.size > MAX_IMAGE_BYTES) {
    return `${file.name || 'That image'} is over ${MAX_IMAGE_BYTES / (1024 * 1024)} MB`;
  }
  return null;
}

function base64(bytes: Uint8Array): string {
  let out = '';
  const CHUNK = 0x8000;
  for (let i = 0; i < bytes.length; i += CHUNK) {
    out += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  }
  return btoa(out);
}

/** The file's bytes (FileReader: every webview and the test DOM have it). */
function bufferOf(file: Blob): Promise<ArrayBuffer> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as ArrayBuffer);
    reader.onerror = () => reject(reader.error ?? new Error('the file could not be read'));
    reader.readAsArrayBuffer(file);
  });
}

/** Reads `file` into an attachment (the host checks its bytes and scales it). */
export async function readImage(file: File): Promise<PendingImage> {
  const bytes = new Uint8Array(await bufferOf(file));
  const data = base64(bytes);
  const name = file.name || 'pasted image';
  return {
    id: nextId++,
    name,
    attachment: { kind: 'image', media_type: file.type, data, name },
    url: `data:${file.type};base64,${data}`,
  };
}

/** An image attachment back in the composer (a queued prompt taken back). */
export const pendingFrom = (attachment: Extract<PromptAttachment, { kind: 'image' }>): PendingImage => ({
  id: nextId++,
  name: attachment.name ?? 'image',
  attachment,
  url: `data:${attachment.media_type};base64,${attachment.data}`,
});

/** The image files of a paste or drop. */
export function imageFiles(data: DataTransfer | null): File[] {
  if (!data) return [];
  const files: File[] = [];
  for (const item of Array.from(data.items ?? [])) {
    if (item.kind === 'file') {
      const f = item.getAsFile();
      if (f) files.push(f);
    }
  }
  if (!files.length) files.push(...Array.from(data.files ?? []));
  return files;
}
