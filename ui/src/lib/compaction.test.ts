import { describe, expect, it } from 'vitest';
import type { AgentEvent } from './bindings';
import { betweenRuns, compactionText, instructionsText, meterText, runItems, shortTokens } from './compaction';
import { fromStored } from './stored';
import { emptyTranscript, latestCompaction, reduce, type Transcript, type TranscriptAction } from './transcript';
import { chatRun, chatSession, compacted, context, contextEvent } from '../test/compaction';
import { rewound } from '../test/changes';
import { delegated, kept } from '../test/events';

const play = (actions: TranscriptAction[], from: Transcript = emptyTranscript()) => actions.reduce(reduce, from);
const events = (actions: TranscriptAction[]) => actions.filter((a): a is AgentEvent => a.type !== 'user_prompt');

/** Which turns are summarized, per run. */
const summarized = (t: Transcript) => t.runs.map((r) => r.turns.map((x) => x.summarized ?? false));

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

/** Three finished runs of 3 turns each. */
const three = () => chatSession(chatRun(1, 'one', 3), chatRun(2, 'two', 3), chatRun(3, 'three', 3));

describe('the context', () => {
  it('keeps the latest context event of the session, not a teammate’s', () => {
    const t = play(three().actions);
    expect(t.context).toEqual(context(33_000));
    expect(t.context).not.toHaveProperty('type');
    const after = reduce(t, delegated('c9', 'helper', contextEvent(context(500, 8_000))));
    expect(after.context).toEqual(context(33_000));
  });

  it('starts no run', () => {
    const t = play([contextEvent(context(4_000))]);
    expect(t.runs).toEqual([]);
    expect(t.context).toEqual(context(4_000));
  });

  it('records the run’s max turns, none when unknown (older sessions)', () => {
    const t = play([...chatRun(1, 'a', 1, { maxTurns: 30 }).actions, ...chatRun(2, 'b', 1, { maxTurns: 0 }).actions]);
    expect(t.runs.map((r) => r.maxTurns)).toEqual([30, undefined]);
  });
});

describe('compactions', () => {
  it('asked between runs: after its run, the last kept_turns turns stay, every earlier one is marked', () => {
    const t = reduce(play(three().actions), compacted({ kept_turns: 4 }));
    expect(summarized(t)).toEqual([
      [true, true, true],
      [true, true, false],
      [false, false, false],
    ]);
    expect(t.runs).toHaveLength(3);
    expect(t.compactions).toHaveLength(1);
    expect(t.compactions[0]).toMatchObject({ id: 'cp1', reason: 'asked', afterRun: 2, afterRewinds: 0 });
    expect(t.compactions[0]!.beforeTurn).toBeUndefined();
    expect(t.compactions[0]!.marks).toHaveLength(5);
    expect(t.compactions[0]).not.toHaveProperty('type');
    expect(latestCompaction(t)?.id).toBe('cp1');
  });

  it('in a run: placed before the turn it came in, counting only earlier turns', () => {
    const run2 = chatRun(2, 'two', 3, { compactBefore: { turn: 3, info: { kept_turns: 1, after_tokens: 2_000 } } });
    const t = play(chatSession(chatRun(1, 'one', 3), run2).actions);
    expect(t.compactions[0]).toMatchObject({ reason: 'threshold', afterRun: 1, beforeTurn: 2 });
    // Turn 3 of run 2 came after it; turn 2 is the one kept.
    expect(summarized(t)).toEqual([
      [true, true, true],
      [true, false, false],
    ]);
    // The summarizer's tokens go to the turn it ran in; the context after it is measured again.
    expect(t.runs[1]!.turns[2]!.usage).toEqual({ input_tokens: 600, output_tokens: 60, cache_read_tokens: 0 });
    expect(t.context).toEqual(context(5_000));
  });

  it('a second compaction marks only turns still in the conversation', () => {
    const first = reduce(play(three().actions), compacted({ id: 'a', kept_turns: 4 }));
    const more = play(chatRun(4, 'four', 2).actions, first);
    // Kept: run 4's two turns and run 3's last; run 3's first two (kept by a) are now summarized.
    const second = reduce(more, compacted({ id: 'b', kept_turns: 3 }));
    expect(summarized(second)).toEqual([
      [true, true, true],
      [true, true, true],
      [true, true, false],
      [false, false],
    ]);
    expect(second.compactions.map((c) => c.marks.length)).toEqual([5, 3]);
    expect(second.compactions[1]!.marks).toEqual([
      { run: 2, turn: 1 },
      { run: 2, turn: 0 },
      { run: 1, turn: 2 },
    ]);
    expect(latestCompaction(second)?.id).toBe('b');
  });

  it('rewound turns stay rewound and do not count as kept', () => {
    const base = play(three().actions);
    // Run 3 set aside; then run 2 from turn 3 on.
    const r = play([rewound({ id: 'r1', prompt: 3, turn: 0 }), rewound({ id: 'r2', prompt: 2, turn: 3 })], base);
    const t = reduce(r, compacted({ kept_turns: 2 }));
    // Kept: run 2's first two turns (its third and run 3 are set aside).
    expect(summarized(t)).toEqual([
      [true, true, true],
      [false, false, false],
      [false, false, false],
    ]);
    expect(t.runs[1]!.turns[2]!.rewound).toBe(true);
    expect(t.runs[2]!.rewound).toBe(true);
    expect(t.compactions[0]!.afterRewinds).toBe(2);
  });

  it('an undo unmarks exactly what it marked, and puts the meter back', () => {
    const base = play(three().actions);
    const a = reduce(base, compacted({ id: 'a', kept_turns: 4 }));
    expect(a.context).toEqual({ ...context(33_000), history: 3_100, used: 6_100 });
    const more = play(chatRun(4, 'four', 2).actions, a);
    const b = reduce(more, compacted({ id: 'b', kept_turns: 3 }));
    const undoB = reduce(b, { type: 'compaction_undone', id: 'b' });
    expect(undoB.runs).toEqual(more.runs);
    expect(undoB.context).toEqual(b.compactions[1]!.contextBefore);
    expect(undoB.compactions.map((c) => [c.id, c.undone ?? false])).toEqual([
      ['a', false],
      ['b', true],
    ]);
    expect(latestCompaction(undoB)?.id).toBe('a');
    const undoA = reduce(undoB, { type: 'compaction_undone', id: 'a' });
    expect(summarized(undoA)).toEqual([
      [false, false, false],
      [false, false, false],
      [false, false, false],
      [false, false],
    ]);
    // Run 4 measured the context since: the meter shows that, not what was before a.
    expect(undoA.context).toEqual(more.context);
    expect(latestCompaction(undoA)).toBeUndefined();
    // Undone once is undone: a repeat changes nothing.
    expect(reduce(undoA, { type: 'compaction_undone', id: 'a' })).toEqual(undoA);
  });

  it('an undo right after an asked compaction restores the context before it', () => {
    const base = play(three().actions);
    const t = play([compacted({ kept_turns: 4 }), { type: 'compaction_undone', id: 'cp1' }], base);
    expect(t.context).toEqual(base.context);
    expect(t.runs).toEqual(base.runs);
  });

  it('an edit replaces the summary', () => {
    const t = play([compacted({ summary: 'old' }), { type: 'compaction_edited', id: 'cp1', summary: 'new words' }], play(three().actions));
    expect(t.compactions[0]!.summary).toBe('new words');
    expect(reduce(t, { type: 'compaction_edited', id: 'nope', summary: 'x' })).toEqual(t);
  });

  it('never changes the state it was given', () => {
    const before = deepFreeze(reduce(play(three().actions), compacted({ id: 'a', kept_turns: 4 })));
    const snapshot = JSON.stringify(before);
    const after = play(
      [{ type: 'compaction_edited', id: 'a', summary: 's' }, { type: 'compaction_undone', id: 'a' }, compacted({ id: 'b', kept_turns: 1 })],
      before,
    );
    expect(JSON.stringify(before)).toBe(snapshot);
    expect(summarized(after)[2]).toEqual([true, true, false]);
  });
});

describe('a stored compacted session', () => {
  const run2 = chatRun(2, 'two', 3, { compactBefore: { turn: 3, info: { id: 'auto', kept_turns: 1 } } });
  const live = chatSession(chatRun(1, 'one', 3), run2, chatRun(3, 'three', 2));
  const between: AgentEvent[] = [
    compacted({ id: 'asked', kept_turns: 3 }),
    { type: 'compaction_edited', id: 'asked', summary: 'edited' },
  ];
  const actions = [...live.actions, ...between, ...chatRun(4, 'four', 1).actions];
  const messages = [...live.messages, ...chatRun(4, 'four', 1).messages];

  it('replays like the live stream: dividers, marks, context, summaries', () => {
    const view = play(actions);
    expect(fromStored(messages, kept(events(actions)))).toEqual(view);
    expect(view.compactions.map((c) => [c.id, c.afterRun, c.beforeTurn, c.summary])).toEqual([
      ['auto', 1, 2, 'The user asked for X; the agent did Y.'],
      ['asked', 2, undefined, 'edited'],
    ]);
    expect(summarized(view)).toEqual([
      [true, true, true],
      [true, true, false],
      [false, false],
      [false],
    ]);
  });

  it('keeps what came between runs out of them, even before the first', () => {
    const first = chatRun(1, 'one', 2);
    const odd = [compacted({ id: 'early', kept_turns: 0 }), ...first.actions, compacted({ id: 'late', kept_turns: 1 })];
    const view = play(odd);
    expect(fromStored(first.messages, kept(events(odd)))).toEqual(view);
    expect(view.runs.map((r) => r.prompt)).toEqual(['one']);
    expect(view.compactions.map((c) => [c.id, c.afterRun, c.marks.length])).toEqual([
      ['early', -1, 0],
      ['late', 0, 1],
    ]);
  });

  it('replays an undo too', () => {
    const undone = [...actions, { type: 'compaction_undone', id: 'asked' } as const];
    const view = play(undone);
    expect(fromStored(messages, kept(events(undone)))).toEqual(view);
    expect(summarized(view)[1]).toEqual([true, false, false]);
  });
});

describe('what a run shows', () => {
  const t = reduce(play(chatSession(chatRun(1, 'one', 2), chatRun(2, 'two', 4, { compactBefore: { turn: 4, info: { kept_turns: 1 } } })).actions), compacted({ id: 'x', kept_turns: 0 }));

  it('groups summarized turns and puts a compaction before the turn it came in', () => {
    const items = runItems(t.runs[1]!.turns, t.compactions.filter((c) => c.beforeTurn !== undefined));
    expect(items.map((i) => (i.kind === 'summarized' ? `${i.turns.length} summarized` : i.kind === 'turn' ? `turn ${i.index}` : i.compaction.id))).toEqual([
      '3 summarized',
      'cp1',
      '1 summarized',
    ]);
    // Skipped turns are not shown, nor a compaction before them.
    expect(runItems(t.runs[1]!.turns, t.compactions.filter((c) => c.beforeTurn !== undefined), 3).map((i) => i.kind)).toEqual([
      'compaction',
      'summarized',
    ]);
  });

  it('orders rewinds and compactions between runs as they happened', () => {
    const u = play([rewound({ id: 'r1', prompt: 2, turn: 0, conversation: false }), compacted({ id: 'y' }), rewound({ id: 'r2', prompt: 2, turn: 0, conversation: false })], t);
    expect(betweenRuns(u, 1).map((i) => (i.kind === 'rewind' ? i.rewind.id : i.compaction.id))).toEqual(['x', 'r1', 'y', 'r2']);
    expect(betweenRuns(u, 0)).toEqual([]);
  });
});

describe('words and numbers', () => {
  it.each([
    [950, '950'],
    [1_234, '1.2k'],
    [12_345, '12.3k'],
    [200_000, '200k'],
    [1_047_576, '1M'],
    [0, '0'],
    [999, '999'],
    [1_000, '1k'],
    [1_250, '1.3k'],
    [1_350, '1.4k'],
    [999_949, '999.9k'],
    [999_999, '1M'],
    [1_500_000, '1.5M'],
    [2_000_000_000, '2B'],
    [-12_345, '-12.3k'],
  ])('%d tokens read %s', (n, s) => expect(shortTokens(n)).toBe(s));

  it('the meter with and without a window', () => {
    expect(meterText(context(12_300))).toBe('12.3k / 200k tokens');
    expect(meterText(context(12_300, null))).toBe('12.3k tokens · window unknown');
  });

  it('a divider, undone or not', () => {
    const t = reduce(play(three().actions), compacted());
    expect(compactionText(t.compactions[0]!)).toBe('Conversation compacted — 45 messages summarized (12.3k → 3.1k tokens)');
    expect(compactionText({ ...t.compactions[0]!, undone: true })).toBe('Compaction undone — 45 messages back in the conversation');
  });

  it('the instructions in effect', () => {
    expect(instructionsText({ files: [], text: '', notices: [] })).toBe('No AGENTS.md');
    expect(
      instructionsText({ files: [{ path: 'AGENTS.md', bytes: 4_800, tokens: 1_200, truncated: false }], text: 'x', notices: [] }),
    ).toBe('AGENTS.md · 1.2k tokens');
  });
});
