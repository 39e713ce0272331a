import { describe, expect, it } from 'vitest';
import type { CallPreview } from './bindings';
import { rewindText } from './rewind';
import { emptyTranscript, reduce, type Transcript, type TranscriptAction } from './transcript';
import { call } from '../test/events';
import { edit, editRun, editSession, rewound, summaryOf } from '../test/changes';

const play = (actions: TranscriptAction[], from: Transcript = emptyTranscript()) => actions.reduce(reduce, from);

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

/** Three finished runs, each with two turns; turn 1 of each has a checkpoint. */
const three = () => play(editSession('one', 'two', 'three').actions);
/** Which runs and turns are marked, as [run rewound, [turn rewound…]] per run. */
const marks = (t: Transcript) => t.runs.map((r) => [r.rewound ?? false, r.turns.map((x) => x.rewound ?? false)]);

describe('file changes on cards and runs', () => {
  it('puts the change a call made on its card, and the preview of an asked call', () => {
    const preview: CallPreview = { kind: 'change', change: edit };
    const c = call('c1', 'file_edit', { path: edit.path });
    const t = play([
      { type: 'user_prompt', text: 'edit' },
      { type: 'run_started', agent: 'main', model: 'm', max_turns: 100 },
      { type: 'turn_started', turn: 1 },
      { type: 'tool_call_started', summary: '', call: c },
      { type: 'approval_requested', summary: '', request_id: 'r1', call: c, preview },
    ]);
    expect(t.runs[0]!.turns[0]!.cards[0]).toMatchObject({ state: 'waiting', preview });
    const done = play(
      [
        { type: 'approval_resolved', request_id: 'r1', decision: 'once' },
        { type: 'tool_call_finished', summary: '', status: { kind: 'ok' }, id: 'c1', name: 'file_edit', output: 'ok', is_error: false, duration_ms: 1, changes: [edit] },
      ],
      t,
    );
    expect(done.runs[0]!.turns[0]!.cards[0]).toMatchObject({ state: 'ok', changes: [edit], preview });
  });

  it('a call without changes gets none', () => {
    const t = play(editRun(1, 'x', 0).actions.filter((a) => a.type !== 'tool_call_finished'));
    expect(t.runs[0]!.turns[0]!.cards[0]!.changes).toBeUndefined();
  });

  it('puts checkpoints on the run (turn 0) and on their turn, and the run changes on the run', () => {
    const run = play(editRun(1, 'x', 0).actions).runs[0]!;
    expect(run.checkpoint).toBe('ck1-0');
    expect(run.turns.map((t) => t.checkpoint)).toEqual(['ck1-1', undefined]);
    expect(run.changes).toEqual({ from: 'ck1-0', to: 'ck1-end', files: [summaryOf(edit)] });
  });
});

describe('rewinds', () => {
  it('back to before a prompt marks that run and every later one', () => {
    const t = reduce(three(), rewound({ prompt: 2, turn: 0, changed: [summaryOf(edit)] }));
    expect(marks(t)).toEqual([
      [false, [false, false]],
      [true, [false, false]],
      [true, [false, false]],
    ]);
    expect(t.rewinds).toHaveLength(1);
    expect(t.rewinds[0]).toMatchObject({ id: 'rw1', prompt: 2, turn: 0, afterRun: 2, changed: [summaryOf(edit)] });
    expect(t.rewinds[0]).not.toHaveProperty('type');
  });

  it('back to before a step marks that turn and the later ones of its run, and every later run', () => {
    const t = reduce(three(), rewound({ prompt: 2, turn: 2 }));
    expect(marks(t)).toEqual([
      [false, [false, false]],
      [false, [false, true]],
      [true, [false, false]],
    ]);
  });

  it('files only marks nothing but is listed', () => {
    const before = three();
    const t = reduce(before, rewound({ prompt: 1, turn: 0, conversation: false }));
    expect(t.runs).toEqual(before.runs);
    expect(t.rewinds.map((r) => [r.files, r.conversation, r.afterRun])).toEqual([[true, false, 2]]);
  });

  it('an undo takes back exactly the marks the undone rewind made', () => {
    const base = three();
    const a = reduce(base, rewound({ id: 'a', prompt: 3, turn: 0 }));
    // b marks run 2's second turn; run 3 was already marked by a.
    const b = reduce(a, rewound({ id: 'b', prompt: 2, turn: 2 }));
    expect(marks(b)).toEqual([
      [false, [false, false]],
      [false, [false, true]],
      [true, [false, false]],
    ]);
    const undoB = reduce(b, rewound({ id: 'u1', prompt: 2, turn: 2, undoes: 'b' }));
    expect(undoB.runs).toEqual(a.runs);
    const undoA = reduce(undoB, rewound({ id: 'u2', prompt: 3, turn: 0, undoes: 'a' }));
    expect(undoA.runs).toEqual(base.runs);
    expect(undoA.rewinds.map((r) => r.id)).toEqual(['a', 'b', 'u1', 'u2']);
    // Undoing the undo marks again what it had unmarked.
    const redo = reduce(undoA, rewound({ id: 'u3', undoes: 'u2' }));
    expect(redo.runs).toEqual(a.runs);
  });

  it('an undo of an unknown rewind changes no mark', () => {
    const base = three();
    expect(reduce(base, rewound({ undoes: 'nope' })).runs).toEqual(base.runs);
  });

  it('starts no run and joins none: the next run is a new one after it', () => {
    const first = editRun(1, 'one', 0).actions;
    const t = play([...first, rewound({ prompt: 1, turn: 0 }), ...editRun(2, 'two', 4).actions]);
    expect(t.runs.map((r) => [r.prompt, r.rewound ?? false, r.end?.exit])).toEqual([
      ['one', true, 'end_turn'],
      ['two', false, 'end_turn'],
    ]);
    expect(t.rewinds[0]!.afterRun).toBe(0);
    expect(play([rewound()]).runs).toEqual([]);
    expect(play([rewound()]).rewinds[0]!.afterRun).toBe(-1);
  });

  it('never changes the state it was given', () => {
    const before = deepFreeze(reduce(three(), rewound({ id: 'a', prompt: 2, turn: 2 })));
    const snapshot = JSON.stringify(before);
    const after = play([rewound({ id: 'b', prompt: 1, turn: 0 }), rewound({ id: 'u', undoes: 'a' })], before);
    expect(JSON.stringify(before)).toBe(snapshot);
    expect(marks(after)[1]).toEqual([true, [false, false]]);
  });
});

describe('rewind markers', () => {
  it.each([
    [{ prompt: 2, turn: 3, changed: [summaryOf(edit), summaryOf(edit), summaryOf(edit), summaryOf(edit)] }, 'Rewound files and conversation to prompt 2 (before step 3) — 4 files changed'],
    [{ prompt: 1, turn: 0, conversation: false, changed: [summaryOf(edit)] }, 'Rewound files to before prompt 1 — 1 file changed'],
    [{ prompt: 2, turn: 0, files: false }, 'Rewound conversation to before prompt 2'],
    [{ undoes: 'rw0', changed: [summaryOf(edit)] }, 'Undid the rewind — 1 file changed'],
  ])('%o reads "%s"', (over, expected) => {
    const event = rewound(over);
    if (event.type !== 'rewound') throw new Error('not a rewind');
    expect(rewindText(event)).toBe(expected);
  });
});
