import { describe, expect, it } from 'vitest';
import type { AgentEvent, Message } from './bindings';
import { fromStored, NO_RESULT, placeOfMessage, replayActions } from './stored';
import { emptyTranscript, reduce, type TranscriptAction } from './transcript';
import {
  assistant,
  call,
  delegated,
  kept,
  results,
  text,
  toolUse,
  usage,
  userText,
} from '../test/events';
import { bash, errorMessages, errorRun, prompt, toolMessages, toolRun, write } from '../test/sessions';
import { editRun, editSession, rewound } from '../test/changes';

const live = (actions: TranscriptAction[]) => actions.reduce(reduce, emptyTranscript());
const events = (actions: TranscriptAction[]) =>
  actions.filter((a): a is AgentEvent => a.type !== 'user_prompt');

/** The live view must equal the view rebuilt from what the session file keeps. */
function expectSameView(actions: TranscriptAction[], messages: Message[]) {
  const stored = fromStored(messages, kept(events(actions)));
  expect(stored).toEqual(live(actions));
  return stored;
}

describe('placeOfMessage', () => {
  it('finds the run and turn a message of the history shows in', () => {
    const messages: Message[] = [
      userText('one'),
      assistant(text('looking'), toolUse(write)),
      results(['c1', 'ok']),
      assistant(text('done')),
      userText('two'),
      assistant(text('sure')),
    ];
    expect([0, 1, 2, 3, 4, 5, 6].map((i) => placeOfMessage(messages, i))).toEqual([
      { run: 0, turn: 0 },
      { run: 0, turn: 1 },
      { run: 0, turn: 1 },
      { run: 0, turn: 2 },
      { run: 1, turn: 0 },
      { run: 1, turn: 1 },
      null,
    ]);
  });
});

describe('a stored session renders like the live stream', () => {
  it('tool calls, an approval, thinking, usage and two runs', () => {
    const view = expectSameView([...toolRun, ...errorRun], [...toolMessages, ...errorMessages]);
    // And the view is the one we expect, not just equal.
    expect(view.runs.map((r) => r.prompt)).toEqual(['Write hello.txt', 'And again']);
    expect(view.runs[0]!.turns[0]!.cards.map((c) => [c.name, c.state, c.durationMs])).toEqual([
      ['file_write', 'ok', 4],
      ['bash', 'ok', 31],
    ]);
    expect(view.runs[1]!.turns[0]!.notices[0]).toMatchObject({ kind: 'error' });
  });

  it('a run stopped while the model was streaming, after a turn with tools', () => {
    const actions: TranscriptAction[] = [
      prompt('go'),
      { type: 'run_started', agent: 'main', model: 'm1', max_turns: 100 },
      { type: 'turn_started', turn: 1 },
      { type: 'usage', turn: usage(10, 2), total: usage(10, 2) },
      { type: 'turn_finished', turn: 1, stop_reason: 'tool_use' },
      { type: 'tool_call_started', summary: '', call: write },
      { type: 'tool_call_finished', summary: '', status: { kind: 'ok' }, id: 'c1', name: 'file_write', output: 'ok', is_error: false, duration_ms: 1 },
      { type: 'turn_started', turn: 2 },
      { type: 'text_delta', text: 'Now I' },
      { type: 'usage', turn: usage(12, 1), total: usage(22, 3) },
      { type: 'run_finished', exit: 'aborted', turns: 2, usage: usage(22, 3) },
    ];
    const messages = [
      userText('go'),
      assistant(toolUse(write)),
      results(['c1', 'ok']),
      assistant(text('Now I')),
    ];
    const view = expectSameView(actions, messages);
    expect(view.runs[0]!.turns.map((t) => t.usage)).toEqual([usage(10, 2), usage(12, 1)]);
  });

  it('delegated usage stays in its turn; budget exceeded', () => {
    const d = call('d1', 'delegate_to_agent', { agent: 'helper', task: 'look' });
    const actions: TranscriptAction[] = [
      prompt('go'),
      { type: 'run_started', agent: 'main', model: 'm1', max_turns: 100 },
      { type: 'warning', message: 'mcp server x failed' },
      { type: 'turn_started', turn: 1 },
      { type: 'usage', turn: usage(10, 2), total: usage(10, 2) },
      { type: 'turn_finished', turn: 1, stop_reason: 'tool_use' },
      { type: 'tool_call_started', summary: '', call: d },
      delegated('d1', 'helper', { type: 'run_started', agent: 'helper', model: 'm1', max_turns: 100 }),
      delegated('d1', 'helper', { type: 'turn_started', turn: 1 }),
      delegated('d1', 'helper', { type: 'usage', turn: usage(50, 5), total: usage(50, 5) }),
      delegated('d1', 'helper', { type: 'turn_finished', turn: 1, stop_reason: 'end_turn' }),
      delegated('d1', 'helper', { type: 'run_finished', exit: 'end_turn', turns: 1, usage: usage(50, 5) }),
      { type: 'tool_call_finished', summary: '', status: { kind: 'ok' }, id: 'd1', name: 'delegate_to_agent', output: 'found it', is_error: false, duration_ms: 900 },
      { type: 'usage', turn: usage(50, 5), total: usage(60, 7) },
      { type: 'run_finished', exit: 'budget_exceeded', turns: 1, usage: usage(60, 7) },
    ];
    const messages = [userText('go'), assistant(toolUse(d)), results(['d1', 'found it'])];
    const view = expectSameView(actions, messages);
    expect(view.runs[0]!.notices).toHaveLength(1);
    expect(view.runs[0]!.turns).toHaveLength(1);
    expect(view.runs[0]!.turns[0]!.usage).toEqual(usage(60, 7));
    const sub = view.runs[0]!.turns[0]!.cards[0]!.delegated!.transcript;
    expect(sub.runs[0]!.turns[0]!.usage).toEqual(usage(50, 5));
  });

  it('a loop warned, then terminated (calls not run), and max tokens', () => {
    const g = (id: string) => call(id, 'grep', { pattern: 'x' });
    const loop = (action: 'warned' | 'terminated'): AgentEvent => ({
      type: 'loop_detected',
      kind: 'tool_repetition',
      repetitions: 3,
      action,
      detail: 'the same grep call 3 times',
    });
    const turn = (n: number, id: string, extra: AgentEvent[], run: boolean): TranscriptAction[] => [
      { type: 'turn_started', turn: n },
      { type: 'usage', turn: usage(1, 1), total: usage(n, n) },
      { type: 'turn_finished', turn: n, stop_reason: 'tool_use' },
      ...extra,
      ...(run
        ? ([
            { type: 'tool_call_started', summary: '', call: g(id) },
            { type: 'tool_call_finished', summary: '', status: { kind: 'ok' }, id, name: 'grep', output: 'none', is_error: false, duration_ms: 1 },
          ] as AgentEvent[])
        : []),
    ];
    const actions: TranscriptAction[] = [
      prompt('find x'),
      { type: 'run_started', agent: 'main', model: 'm1', max_turns: 100 },
      ...turn(1, 'g1', [{ type: 'warning', message: 'output limit' }], true),
      ...turn(2, 'g2', [loop('warned')], true),
      ...turn(3, 'g3', [loop('terminated')], false),
      { type: 'run_finished', exit: 'loop_detected', turns: 3, usage: usage(3, 3) },
    ];
    const messages = [
      userText('find x'),
      assistant(toolUse(g('g1'))),
      results(['g1', 'none']),
      assistant(toolUse(g('g2'))),
      { ...results(['g2', 'none']), content: [...results(['g2', 'none']).content, text('You seem stuck.')] },
      assistant(toolUse(g('g3'))),
      results(['g3', 'Not run: the run was stopped', true]),
    ];
    const view = expectSameView(actions, messages);
    expect(view.runs).toHaveLength(1);
    expect(view.runs[0]!.turns.map((t) => t.cards.length)).toEqual([1, 1, 0]);
    expect(view.runs[0]!.end?.exit).toBe('loop_detected');
  });

  it('max turns with an error before the first turn finished', () => {
    const actions: TranscriptAction[] = [
      prompt('hi'),
      { type: 'run_started', agent: 'main', model: 'm1', max_turns: 100 },
      { type: 'turn_started', turn: 1 },
      { type: 'usage', turn: usage(0, 0), total: usage(0, 0) },
      { type: 'error', kind: 'auth', message: 'no key' },
      { type: 'run_finished', exit: 'error', turns: 1, usage: usage(0, 0) },
    ];
    expectSameView(actions, [userText('hi')]);
  });
});

describe('what only a stored session has', () => {
  it('fills results lost when Paddock stopped, from the messages', () => {
    const messages = [
      userText('go'),
      assistant(toolUse(bash)),
      results(['c2', 'Interrupted: Paddock stopped', true]),
    ];
    const stored: AgentEvent[] = [
      { type: 'run_started', agent: 'main', model: 'm1', max_turns: 100 },
      { type: 'usage', turn: usage(1, 1), total: usage(1, 1) },
      { type: 'turn_finished', turn: 1, stop_reason: 'tool_use' },
    ];
    const view = fromStored(messages, stored);
    expect(view.runs[0]!.turns[0]!.cards[0]).toMatchObject({
      name: 'bash',
      input: { command: 'ls' },
      state: 'error',
      output: 'Interrupted: Paddock stopped',
    });
    expect(view.runs[0]!.end).toBeUndefined();
  });

  it('shows a call that has no result at all as cut off, not as running', () => {
    // What a process killed while bash ran leaves: the call on disk, no result yet.
    const stored: AgentEvent[] = [
      { type: 'run_started', agent: 'main', model: 'm1', max_turns: 100 },
      { type: 'usage', turn: usage(1, 1), total: usage(1, 1) },
      { type: 'turn_finished', turn: 1, stop_reason: 'tool_use' },
    ];
    const view = fromStored([userText('go'), assistant(toolUse(bash))], stored);
    expect(view.runs[0]!.turns[0]!.cards[0]).toMatchObject({ name: 'bash', state: 'error', output: NO_RESULT });
  });

  it('renders messages without events (an old or damaged file)', () => {
    const view = fromStored(toolMessages, []);
    expect(view.runs[0]!.prompt).toBe('Write hello.txt');
    expect(view.runs[0]!.turns.map((t) => t.text)).toEqual(["I'll write it.", 'Done.']);
    expect(view.runs[0]!.turns[0]!.cards.map((c) => c.state)).toEqual(['ok', 'ok']);
  });

  it("keeps a teammate's tool cards, without its streamed text (not stored)", () => {
    const d = call('d1', 'delegate_to_agent', { agent: 'helper', task: 'look' });
    const actions: TranscriptAction[] = [
      prompt('go'),
      { type: 'run_started', agent: 'main', model: 'm1', max_turns: 100 },
      { type: 'turn_started', turn: 1 },
      { type: 'usage', turn: usage(1, 1), total: usage(1, 1) },
      { type: 'turn_finished', turn: 1, stop_reason: 'tool_use' },
      { type: 'tool_call_started', summary: '', call: d },
      delegated('d1', 'helper', { type: 'run_started', agent: 'helper', model: 'm1', max_turns: 100 }),
      delegated('d1', 'helper', { type: 'turn_started', turn: 1 }),
      delegated('d1', 'helper', { type: 'text_delta', text: 'searching' }),
      delegated('d1', 'helper', { type: 'usage', turn: usage(2, 2), total: usage(2, 2) }),
      delegated('d1', 'helper', { type: 'turn_finished', turn: 1, stop_reason: 'tool_use' }),
      delegated('d1', 'helper', { type: 'tool_call_started', summary: '', call: call('h1', 'grep') }),
      delegated('d1', 'helper', { type: 'tool_call_finished', summary: '', status: { kind: 'ok' }, id: 'h1', name: 'grep', output: 'hit', is_error: false, duration_ms: 2 }),
      delegated('d1', 'helper', { type: 'run_finished', exit: 'end_turn', turns: 1, usage: usage(2, 2) }),
    ];
    const messages = [userText('go'), assistant(toolUse(d))];
    const view = fromStored(messages, kept(events(actions)));
    const sub = view.runs[0]!.turns[0]!.cards[0]!.delegated!.transcript;
    const liveSub = live(actions).runs[0]!.turns[0]!.cards[0]!.delegated!.transcript;
    expect(sub.runs[0]!.turns[0]!.cards[0]).toMatchObject({ name: 'grep', state: 'ok', output: 'hit' });
    expect(sub.runs[0]!.turns[0]!.usage).toEqual(liveSub.runs[0]!.turns[0]!.usage);
    expect(sub.runs[0]!.end).toEqual(liveSub.runs[0]!.end);
    expect(sub.runs[0]!.turns[0]!.text).toBe('');
  });
});

describe('checkpoints, changes and rewinds in a stored session', () => {
  it('replays checkpoints, diffs and run changes where the live stream had them', () => {
    const { actions, messages } = editSession('one', 'two');
    // The exact live stream back: checkpoints after the turn's end, before its calls start.
    expect(replayActions(messages, kept(events(actions)))).toEqual(actions);
    const view = expectSameView(actions, messages);
    expect(view.runs.map((r) => [r.checkpoint, r.turns[0]!.checkpoint, r.changes?.to])).toEqual([
      ['ck1-0', 'ck1-1', 'ck1-end'],
      ['ck2-0', 'ck2-1', 'ck2-end'],
    ]);
  });

  it('keeps a rewind between the runs it came between', () => {
    const one = editRun(1, 'one', 0);
    const two = editRun(2, 'two again', 4);
    // The session file keeps the set-aside messages: the rewind only marks them.
    const actions = [...one.actions, rewound({ prompt: 1, turn: 0 }), ...two.actions];
    const messages = [...one.messages, ...two.messages];
    expect(replayActions(messages, kept(events(actions)))).toEqual(actions);
    const view = expectSameView(actions, messages);
    expect(view.runs.map((r) => [r.prompt, r.rewound ?? false])).toEqual([
      ['one', true],
      ['two again', false],
    ]);
    expect(view.rewinds.map((r) => r.afterRun)).toEqual([0]);
  });

  it('keeps a rewind and its undo after the last run', () => {
    const { actions, messages } = editSession('one', 'two');
    const all = [...actions, rewound({ id: 'a', prompt: 2, turn: 1 }), rewound({ id: 'b', undoes: 'a' })];
    const view = expectSameView(all, messages);
    expect(view.rewinds.map((r) => [r.id, r.afterRun])).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
    expect(view.runs.every((r) => !r.rewound && r.turns.every((t) => !t.rewound))).toBe(true);
  });
});
