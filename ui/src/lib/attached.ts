// What a prompt took along (the files and folders named with `@`, the images), as the
// transcript shows it under the prompt: from the attachments being sent, or from a stored
// prompt message.
import type { ContentBlock, PromptAttachment } from './bindings';

export type Attached =
  | {
      kind: 'mention';
      path: string;
      folder: boolean;
      /** What was sent (a stored session's), else read when opened. */
      text?: string;
      cut?: string;
    }
  | {
      kind: 'image';
      name: string;
      mediaType: string;
      /** Where a stored session keeps it (fetched when shown). */
      sha256?: string;
      /** A `data:` URL, for one being sent. */
      src?: string;
    };

/** The attachments of a prompt being sent. */
export const attachedOf = (attachments: readonly PromptAttachment[]): Attached[] =>
  attachments.map((a) =>
    a.kind === 'mention'
      ? { kind: 'mention', path: a.path.replace(/\/$/, ''), folder: a.path.endsWith('/') }
      : { kind: 'image', name: a.name ?? 'image', mediaType: a.media_type, src: `data:${a.media_type};base64,${a.data}` },
  );

/** What a stored prompt message carried besides its words (a tool's image is not the user's). */
export const attachedIn = (content: readonly ContentBlock[]): Attached[] =>
  content.flatMap((b): Attached[] => {
    if (b.type === 'mention') {
      return [{ kind: 'mention', path: b.path, folder: b.folder, text: b.text, ...(b.cut ? { cut: b.cut } : {}) }];
    }
    if (b.type === 'image' && !b.tool_call_id) {
      return [{ kind: 'image', name: b.name ?? b.sha256.slice(0, 12), mediaType: b.media_type, sha256: b.sha256 }];
    }
    return [];
  });

/** The `attached` of a `user_prompt` action: none when nothing is attached. */
export const attachedAction = (attachments: readonly PromptAttachment[]): { attached?: Attached[] } =>
  attachments.length ? { attached: attachedOf(attachments) } : {};
