// `@` in the composer: where the name being typed is, and what picking a file makes of the
// text. Pure, so the component and the tests share it.
import type { MentionCandidate, PromptAttachment } from './bindings';

/** The `@name` being typed at `caret`: where its `@` is and what follows it so far. */
export interface MentionToken {
  start: number;
  query: string;
}

/** The `@…` word the caret is in, when it starts the text or follows whitespace. */
export function mentionAt(text: string, caret: number): MentionToken | null {
  const before = text.slice(0, caret);
  const at = before.lastIndexOf('@');
  if (at < 0) return null;
  if (at > 0 && !/\s/.test(before[at - 1]!)) return null;
  const query = before.slice(at + 1);
  if (/\s/.test(query)) return null;
  return { start: at, query };
}

/** The text with the typed `@query` replaced by the picked path (a folder ends with `/`), and
 * where the caret goes. */
export function insertMention(text: string, token: MentionToken, picked: MentionCandidate): { text: string; caret: number } {
  const name = `@${picked.path}${picked.folder ? '/' : ''}`;
  const end = token.start + 1 + token.query.length;
  const rest = text.slice(end);
  const spaced = rest.startsWith(' ') ? rest : ` ${rest}`;
  return { text: text.slice(0, token.start) + name + spaced, caret: token.start + name.length + 1 };
}

/** What the prompt attaches: each picked path once. */
export const attachmentsOf = (picked: readonly MentionCandidate[]): PromptAttachment[] =>
  [...new Set(picked.map((p) => p.path))].map((path) => ({ kind: 'mention', path }));
