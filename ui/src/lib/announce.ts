// What a screen reader hears of a live transcript: each finished answer politely, each new
// approval assertively. Computed from the transcript, remembering what was said.
import type { Transcript } from './transcript';

const MAX_CHARS = 400;

export interface Announced {
  /** Keys of what was already said, so each thing is said once. */
  said: Set<string>;
}

export interface Announcement {
  polite?: string;
  assertive?: string;
}

const clip = (s: string) => (s.length > MAX_CHARS ? `${s.slice(0, MAX_CHARS)}…` : s);

export function announce(t: Transcript, memory: Announced): Announcement {
  const out: Announcement = {};
  t.runs.forEach((run, r) => {
    run.turns.forEach((turn) => {
      const key = `turn:${r}:${turn.n}`;
      if (turn.stop && turn.text.trim() && !memory.said.has(key)) {
        memory.said.add(key);
        out.polite = `Answer: ${clip(turn.text.trim())}`;
      }
      for (const card of turn.cards) {
        const ask = `ask:${card.approval?.requestId}`;
        if (card.state === 'waiting' && card.approval && !memory.said.has(ask)) {
          memory.said.add(ask);
          out.assertive = `Approval needed: ${card.name}${card.summary ? ` ${card.summary}` : ''}. Press y to allow once, n to deny.`;
        }
      }
    });
    const end = `end:${r}`;
    if (run.end && !memory.said.has(end)) {
      memory.said.add(end);
      out.polite = `${out.polite ? `${out.polite} ` : ''}Run ended: ${run.end.exit.replace('_', ' ')}.`;
    }
  });
  return out;
}
