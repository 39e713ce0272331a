// Words and numbers for the context meter, compaction dividers and the instructions indicator.
import type { CompactionReason, ContextInfo, ProjectInstructions } from './bindings';
import { plural } from './diff';
import { shortNumber } from './format';
import type { Compaction, Rewind, Transcript } from './transcript';

/** Past this share of the window the meter changes colour (the kernel compacts at 80 % by default). */
export const METER_WARN = 0.8;

/** "950", "12.3k", "200k", "1M". */
export const shortTokens = shortNumber;

/** Used share of the window (0…), or undefined when the window is unknown. */
export const fullness = (c: ContextInfo): number | undefined =>
  c.window ? c.used / c.window : undefined;

/** "12.3k / 200k tokens", or "12.3k tokens · window unknown". */
export const meterText = (c: ContextInfo): string =>
  c.window ? `${shortTokens(c.used)} / ${shortTokens(c.window)} tokens` : `${shortTokens(c.used)} tokens · window unknown`;

/** What takes up the context, for the meter's details. */
export const contextParts = (c: ContextInfo): { label: string; tokens: number }[] => [
  { label: 'Instructions', tokens: c.instructions },
  { label: 'Tools', tokens: c.tools },
  { label: 'Conversation', tokens: c.history },
];

/** "Conversation compacted — 45 messages summarized (12.3k → 3.1k tokens)". */
export function compactionText(c: Compaction): string {
  if (c.undone) return `Compaction undone — ${plural(c.replaced, 'message')} back in the conversation`;
  return `Conversation compacted — ${plural(c.replaced, 'message')} summarized (${shortTokens(c.before_tokens)} → ${shortTokens(c.after_tokens)} tokens)`;
}

export function reasonText(reason: CompactionReason): string {
  switch (reason) {
    case 'threshold':
      return 'by itself, near the context limit';
    case 'overflow':
      return 'after the model said the conversation was too long';
    case 'asked':
      return 'as you asked';
  }
}

/** "AGENTS.md · 1.2k tokens", or "No AGENTS.md". */
export function instructionsText(i: ProjectInstructions): string {
  if (i.files.length === 0) return 'No AGENTS.md';
  const tokens = i.files.reduce((n, f) => n + f.tokens, 0);
  return `${i.files.map((f) => f.path).join(', ')} · ${shortTokens(tokens)} tokens`;
}

/** What a run shows, in order: its turns, summarized ones grouped, and compactions between. */
export type RunItem<T> =
  | { kind: 'turn'; turn: T; index: number }
  | { kind: 'summarized'; turns: { turn: T; index: number }[] }
  | { kind: 'compaction'; compaction: Compaction };

/**
 * The run's items from turn `skip` on: each compaction before the turn it came before (after
 * the last one when it came after every turn), consecutive summarized turns as one group.
 */
export function runItems<T extends { summarized?: boolean }>(
  turns: readonly T[],
  compactions: readonly Compaction[],
  skip = 0,
): RunItem<T>[] {
  const out: RunItem<T>[] = [];
  for (let index = skip; index <= turns.length; index++) {
    for (const c of compactions) if (c.beforeTurn === index) out.push({ kind: 'compaction', compaction: c });
    const turn = turns[index];
    if (!turn) continue;
    const last = out.at(-1);
    if (!turn.summarized) out.push({ kind: 'turn', turn, index });
    else if (last?.kind === 'summarized') last.turns.push({ turn, index });
    else out.push({ kind: 'summarized', turns: [{ turn, index }] });
  }
  return out;
}

export type BetweenItem = { kind: 'rewind'; rewind: Rewind } | { kind: 'compaction'; compaction: Compaction };

/** Rewinds and compactions that happened after run `run` (-1: before any), in order. */
export function betweenRuns(t: Transcript, run: number): BetweenItem[] {
  const { rewinds, compactions } = t;
  const out: BetweenItem[] = [];
  let r = 0;
  const flush = (upTo: number) => {
    for (; r < upTo; r++) {
      const rewind = rewinds[r]!;
      if (rewind.afterRun === run) out.push({ kind: 'rewind', rewind });
    }
  };
  for (const c of compactions) {
    if (c.afterRun !== run || c.beforeTurn !== undefined) continue;
    flush(c.afterRewinds);
    out.push({ kind: 'compaction', compaction: c });
  }
  flush(rewinds.length);
  return out;
}
