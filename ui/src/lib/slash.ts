// The composer's slash commands: the app's built-ins and the saved prompts (the host's
// list), what the menu shows for what was typed, and what a typed `/name args` asks for.
import type { SavedPrompt } from './bindings';

export interface Builtin {
  name: string;
  description: string;
  hint?: string;
}

/** The app's own commands; a saved prompt of the same name is shadowed by these. */
export const BUILTINS: readonly Builtin[] = [
  { name: 'compact', description: 'Summarize the start of the conversation to free context' },
  { name: 'new', description: 'Start a new session' },
  { name: 'model', description: 'Choose the model for the next prompt', hint: '[model]' },
  { name: 'rewind', description: 'Put files or conversation back to before the last prompt' },
  { name: 'cost', description: "Show this session's token usage" },
  { name: 'trust', description: "Review what this folder's settings ask for" },
  { name: 'help', description: 'List the slash commands' },
];

/** One line of the menu. */
export interface SlashItem {
  name: string;
  description: string;
  hint?: string;
  /** Where it comes from: the app, the project's files or the user's own folder. */
  source: 'builtin' | 'project' | 'user';
  /** Why a saved prompt cannot be used (it is listed, not picked). */
  error?: string;
  /** A project prompt that will be shown before it is sent. */
  unconfirmed?: boolean;
}

export function items(saved: readonly SavedPrompt[]): SlashItem[] {
  const builtins: SlashItem[] = BUILTINS.map((b) => ({ ...b, source: 'builtin' }));
  const taken = new Set(BUILTINS.map((b) => b.name));
  const prompts: SlashItem[] = saved
    .filter((p) => !taken.has(p.name))
    .map((p) => ({
      name: p.name,
      description: p.error ?? p.description,
      hint: p.argument_hint,
      source: p.source,
      error: p.status === 'broken' ? (p.error ?? 'cannot be used') : undefined,
      unconfirmed: p.status === 'unconfirmed' || p.status === 'changed',
    }));
  return [...builtins, ...prompts];
}

/** The name typed so far while the menu is open: the text is `/` and a name, nothing after. */
export function menuQuery(text: string): string | null {
  const m = /^\/([a-z0-9:_-]*)$/.exec(text);
  return m ? (m[1] ?? '') : null;
}

/** The menu's lines for `query`: names starting with it first, then names containing it. */
export function filter(all: readonly SlashItem[], query: string): SlashItem[] {
  const q = query.toLowerCase();
  const starts = all.filter((i) => i.name.startsWith(q));
  const contains = all.filter((i) => !i.name.startsWith(q) && i.name.includes(q));
  return [...starts, ...contains];
}

/** `/name args` as typed, when `name` is a known command. */
export function parse(text: string, all: readonly SlashItem[]): { item: SlashItem; args: string } | null {
  const m = /^\/([a-z0-9:_-]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m) return null;
  const item = all.find((i) => i.name === m[1]);
  return item ? { item, args: (m[2] ?? '').trim() } : null;
}
