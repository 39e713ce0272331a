// What a screen reader hears of a live transcript: each finished answer politely, each new
// approval assertively. Computed from the transcript, remembering what was said.
import type { Transcript } from './transcript';

const MAX_CHARS = 400;

export interface Announced {
  /** Keys of what was already said, so each thing is said once. */
  said: Set<string>;
  /**
   * Where the next look starts: the last run and its last turn seen. Earlier runs and turns
   * are done (answers, approvals and ends only come at the end of the transcript), so each
   * event costs the same in a session of 10 turns or 10,000.
   */
  run?: number;
  turn?: number;
}

export interface Announcement {
  polite?: string;
  assertive?: string;
}

const clip = (s: string) => (s.length > MAX_CHARS ? `${s.slice(0, MAX_CHARS)}…` : s);

/** What to say about the transcript's news since the last call with this memory. */
export function announce(t: Transcript, memory: Announced): Announcement {
  const out: Announcement = {};
  const fromRun = Math.min(memory.run ?? 0, Math.max(0, t.runs.length - 1));
  for (let r = fromRun; r < t.runs.length; r++) {
    const run = t.runs[r]!;
    const fromTurn = r === fromRun && r === memory.run ? Math.min(memory.turn ?? 0, run.turns.length) : 0;
    for (let i = fromTurn; i < run.turns.length; i++) {
      const turn = run.turns[i]!;
      const key = `turn:${r}:${turn.n}`;
      if (turn.stop && turn.text.trim() && !memory.said.has(key)) {
        memory.said.add(key);
        out.polite = `Answer: ${clip(turn.text.trim())}`;
      }
      for (const card of turn.cards) {
        if (card.state !== 'waiting' || !card.approval) continue;
        const ask = `ask:${card.approval.requestId}`;
        if (!memory.said.has(ask)) {
          memory.said.add(ask);
          out.assertive = `Approval needed: ${card.name}${card.summary ? ` ${card.summary}` : ''}. Press y to allow once, n to deny.`;
        }
      }
    }
    const end = `end:${r}`;
    if (run.end && !memory.said.has(end)) {
      memory.said.add(end);
      out.polite = `${out.polite ? `${out.polite} ` : ''}Run ended: ${run.end.exit.replace('_', ' ')}.`;
    }
  }
  // The last run's last turn may still change; everything before it is done.
  memory.run = Math.max(0, t.runs.length - 1);
  memory.turn = Math.max(0, (t.runs.at(-1)?.turns.length ?? 1) - 1);
  return out;
}

/** A memory for a transcript just put in place (opened, rewound): what it shows is read,
 * not announced, and only what comes after it is. Looks at its last turn only. */
export function seen(t: Transcript): Announced {
  const last = t.runs.at(-1);
  const memory: Announced = {
    said: new Set(),
    run: Math.max(0, t.runs.length - 1),
    turn: Math.max(0, (last?.turns.length ?? 1) - 1),
  };
  announce(t, memory);
  return memory;
}
