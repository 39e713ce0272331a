import { describe, expect, it } from 'vitest';
import type { AgentEvent, ExitReason } from './bindings';
import {
  emptyTranscript,
  isRunning,
  reduce,
  reduceAll,
  totalUsage,
  type Transcript,
  type TranscriptAction,
} from './transcript';
import { call, delegated, usage } from '../test/events';

const play = (actions: TranscriptAction[], from: Transcript = emptyTranscript()) =>
  actions.reduce(reduce, from);

const start: TranscriptAction[] = [
  { type: 'user_prompt', text: 'write hello.txt' },
  { type: 'run_started', agent: 'main', model: 'm1', max_turns: 100 },
  { type: 'turn_started', turn: 1 },
];

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

describe('runs and text', () => {
  it('opens a run with the prompt and fills it on run_started', () => {
    const t = play(start);
    expect(t.runs).toHaveLength(1);
    expect(t.runs[0]).toMatchObject({ prompt: 'write hello.txt', agent: 'main', model: 'm1' });
    expect(t.runs[0]!.turns.map((x) => x.n)).toEqual([1]);
    expect(isRunning(t)).toBe(true);
  });

  it('starts a new run when run_started comes without a prompt', () => {
    const t = play([{ type: 'run_started', agent: 'main', model: 'm1', max_turns: 100 }]);
    expect(t.runs).toHaveLength(1);
    expect(t.runs[0]!.prompt).toBeUndefined();
  });

  it('joins text and thinking deltas per turn', () => {
    const t = play([
      ...start,
      { type: 'thinking_delta', text: 'Let me ' },
      { type: 'thinking_delta', text: 'think.' },
      { type: 'text_delta', text: 'Hel' },
      { type: 'text_delta', text: 'lo ' },
      { type: 'text_delta', text: '**world**' },
      { type: 'turn_started', turn: 2 },
      { type: 'text_delta', text: 'second' },
    ]);
    const [one, two] = t.runs[0]!.turns;
    expect(one).toMatchObject({ n: 1, thinking: 'Let me think.', text: 'Hello **world**' });
    expect(two).toMatchObject({ n: 2, thinking: '', text: 'second' });
  });

  it('never changes the state it was given', () => {
    const before = deepFreeze(play([...start, { type: 'text_delta', text: 'a' }]));
    const snapshot = JSON.stringify(before);
    const after = play(
      [
        { type: 'text_delta', text: 'b' },
        { type: 'tool_call_started', summary: '', call: call('c1', 'grep') },
        { type: 'usage', turn: usage(1, 1), total: usage(1, 1) },
        { type: 'run_finished', exit: 'end_turn', turns: 1, usage: usage(1, 1) },
      ],
      before,
    );
    expect(JSON.stringify(before)).toBe(snapshot);
    expect(after.runs[0]!.turns[0]!.text).toBe('ab');
  });
});

describe('batches', () => {
  it('a batch gives what the same actions give one by one, and leaves its input alone', () => {
    const actions: TranscriptAction[] = [
      ...start,
      { type: 'text_delta', text: 'x' },
      { type: 'tool_call_started', summary: '', call: call('c1', 'grep') },
      { type: 'approval_requested', summary: '', request_id: 'r1', call: call('c1', 'grep') },
      { type: 'approval_resolved', request_id: 'r1', decision: 'once' },
      { type: 'tool_call_finished', summary: '', status: { kind: 'ok' }, id: 'c1', name: 'grep', output: 'o', is_error: false, duration_ms: 1 },
      { type: 'run_finished', exit: 'end_turn', turns: 1, usage: usage(1, 1) },
    ];
    const half = deepFreeze(play(actions.slice(0, 4)));
    expect(reduceAll(half, actions.slice(4))).toEqual(play(actions));
    expect(half).toEqual(play(actions.slice(0, 4)));
  });
});

describe('tool cards', () => {
  it("keeps an external agent's latest name for a call, and an empty one changes nothing", () => {
    const t = play([
      ...start,
      { type: 'tool_call_started', summary: 'Preparing file…', call: call('c1', 'Write') },
      { type: 'approval_requested', summary: 'Write hello.txt', request_id: 'r1', call: call('c1', 'Write') },
    ]);
    expect(t.runs[0]!.turns[0]!.cards[0]!.summary).toBe('Write hello.txt');
    const done = play(
      [
        { type: 'approval_resolved', request_id: 'r1', decision: 'once' },
        { type: 'tool_call_finished', summary: '', status: { kind: 'ok' }, id: 'c1', name: 'Write', output: '', is_error: false, duration_ms: 1 },
      ],
      t,
    );
    expect(done.runs[0]!.turns[0]!.cards[0]!.summary).toBe('Write hello.txt');
  });

  it('goes running -> ok with output and duration', () => {
    let t = play([
      ...start,
      { type: 'tool_call_started', summary: '', call: call('c1', 'file_read', { path: 'a.txt' }) },
    ]);
    expect(t.runs[0]!.turns[0]!.cards[0]).toMatchObject({
      id: 'c1',
      name: 'file_read',
      input: { path: 'a.txt' },
      state: 'running',
      parsedFromText: false,
    });
    t = reduce(t, {
      type: 'tool_call_finished', summary: '', status: { kind: 'ok' },
      id: 'c1',
      name: 'file_read',
      output: 'contents',
      is_error: false,
      duration_ms: 12,
    });
    expect(t.runs[0]!.turns[0]!.cards[0]).toMatchObject({
      state: 'ok',
      output: 'contents',
      durationMs: 12,
    });
  });

  it('goes waiting -> running -> ok through an approval', () => {
    const bash = call('c2', 'bash', { command: 'ls' });
    let t = play([
      ...start,
      { type: 'tool_call_started', summary: '', call: bash },
      { type: 'approval_requested', summary: '', request_id: 'approval-1', call: bash },
    ]);
    const card = () => t.runs[0]!.turns[0]!.cards[0]!;
    expect(card()).toMatchObject({ state: 'waiting', approval: { requestId: 'approval-1' } });
    t = reduce(t, { type: 'approval_resolved', request_id: 'approval-1', decision: 'session' });
    expect(card()).toMatchObject({
      state: 'running',
      approval: { requestId: 'approval-1', decision: 'session' },
    });
    t = reduce(t, {
      type: 'tool_call_finished', summary: '', status: { kind: 'ok' },
      id: 'c2',
      name: 'bash',
      output: 'a.txt',
      is_error: false,
      duration_ms: 30,
    });
    expect(card().state).toBe('ok');
  });

  it('keeps why a call asks, the rules Always allow would save, and why it ran', () => {
    const bash = call('c2', 'bash', { command: 'git status && ls' });
    let t = play([
      ...start,
      {
        type: 'approval_requested', summary: '', request_id: 'approval-1', call: bash,
        why: 'no rule matches "ls"', proposed_rules: ['git status', 'ls'],
      },
    ]);
    const card = () => t.runs[0]!.turns[0]!.cards[0]!;
    expect(card().approval).toEqual({
      requestId: 'approval-1',
      why: 'no rule matches "ls"',
      proposedRules: ['git status', 'ls'],
    });
    t = reduce(t, { type: 'approval_resolved', request_id: 'approval-1', decision: 'once' });
    expect(card().approval).toMatchObject({ decision: 'once', why: 'no rule matches "ls"' });
    t = reduce(t, {
      type: 'tool_call_finished', summary: '', status: { kind: 'ok' }, id: 'c2', name: 'bash',
      output: '', is_error: false, duration_ms: 3, why: 'allowed by rules.bash[0] "git status"',
    });
    expect(card().why).toBe('allowed by rules.bash[0] "git status"');
  });

  it('ends in error when denied', () => {
    const bash = call('c2', 'bash', { command: 'rm -rf /' });
    const t = play([
      ...start,
      { type: 'tool_call_started', summary: '', call: bash },
      { type: 'approval_requested', summary: '', request_id: 'approval-1', call: bash },
      { type: 'approval_resolved', request_id: 'approval-1', decision: 'deny' },
      {
        type: 'tool_call_finished', summary: '', status: { kind: 'failed' },
        id: 'c2',
        name: 'bash',
        output: "the user denied this call to 'bash'",
        is_error: true,
        duration_ms: 2,
      },
    ]);
    expect(t.runs[0]!.turns[0]!.cards[0]).toMatchObject({
      state: 'error',
      output: "the user denied this call to 'bash'",
      approval: { decision: 'deny' },
    });
  });

  it('reads the status: a refused call is denied, with the summary the tool gave', () => {
    const write = call('c3', 'file_write', { path: 'a.txt', content: 'x' });
    const t = play([
      ...start,
      { type: 'tool_call_started', summary: 'a.txt', call: write },
      {
        type: 'tool_call_finished',
        summary: 'a.txt',
        status: { kind: 'denied', reason: 'not_granted' },
        id: 'c3',
        name: 'file_write',
        output: "Tool 'file_write' is not granted to this agent; it was not run.",
        is_error: true,
        duration_ms: 0,
      },
    ]);
    expect(t.runs[0]!.turns[0]!.cards[0]).toMatchObject({
      state: 'denied',
      summary: 'a.txt',
      status: { kind: 'denied', reason: 'not_granted' },
    });
  });

  it('takes the summary from the result when the start was not kept', () => {
    const t = play([
      ...start,
      {
        type: 'tool_call_finished',
        summary: 'src/**',
        status: { kind: 'timed_out' },
        id: 'c4',
        name: 'glob',
        output: 'timed out',
        is_error: true,
        duration_ms: 5,
      },
    ]);
    expect(t.runs[0]!.turns[0]!.cards[0]).toMatchObject({ state: 'error', summary: 'src/**' });
  });

  it('creates a waiting card for an approval that arrives first', () => {
    const t = play([
      ...start,
      { type: 'approval_requested', summary: '', request_id: 'approval-7', call: call('c9', 'file_write') },
    ]);
    expect(t.runs[0]!.turns[0]!.cards).toEqual([
      expect.objectContaining({ id: 'c9', state: 'waiting' }),
    ]);
  });

  it('marks calls parsed from text', () => {
    const t = play([
      ...start,
      { type: 'tool_call_started', summary: '', call: { ...call('c1', 'glob'), parsed_from_text: true } },
    ]);
    expect(t.runs[0]!.turns[0]!.cards[0]!.parsedFromText).toBe(true);
  });

  it('keeps cards in the turn that started them', () => {
    const t = play([
      ...start,
      { type: 'tool_call_started', summary: '', call: call('c1', 'grep') },
      { type: 'turn_started', turn: 2 },
      {
        type: 'tool_call_finished', summary: '', status: { kind: 'ok' },
        id: 'c1',
        name: 'grep',
        output: 'x',
        is_error: false,
        duration_ms: 1,
      },
    ]);
    expect(t.runs[0]!.turns[0]!.cards[0]!.state).toBe('ok');
    expect(t.runs[0]!.turns[1]!.cards).toEqual([]);
  });

  it('closes cards still open when the run ends', () => {
    const t = play([
      ...start,
      { type: 'tool_call_started', summary: '', call: call('c1', 'bash') },
      { type: 'run_finished', exit: 'aborted', turns: 1, usage: usage(0, 0) },
    ]);
    expect(t.runs[0]!.turns[0]!.cards[0]!.state).toBe('error');
    expect(isRunning(t)).toBe(false);
  });

  it('closes every open card of every turn, leaves finished ones, and copies what it changes', () => {
    const before = deepFreeze(
      play([
        ...start,
        { type: 'tool_call_started', summary: '', call: call('a', 'bash') },
        { type: 'tool_call_started', summary: '', call: call('b', 'grep') },
        { type: 'tool_call_finished', summary: '', status: { kind: 'ok' }, id: 'b', name: 'grep', output: 'hit', is_error: false, duration_ms: 1 },
        { type: 'turn_started', turn: 2 },
        { type: 'tool_call_started', summary: '', call: call('c', 'bash') },
        { type: 'turn_started', turn: 3 },
      ]),
    );
    const t = reduce(before, { type: 'run_finished', exit: 'aborted', turns: 3, usage: usage(0, 0) });
    const states = t.runs[0]!.turns.map((turn) => turn.cards.map((c) => [c.id, c.state, c.output]));
    expect(states).toEqual([
      [
        ['a', 'error', 'No result: the run ended first.'],
        ['b', 'ok', 'hit'],
      ],
      [['c', 'error', 'No result: the run ended first.']],
      [],
    ]);
    expect(before.runs[0]!.turns[0]!.cards[0]!.state).toBe('running');
  });
});

describe('usage', () => {
  it('sums usage per turn (delegated included) and keeps the run total', () => {
    const t = play([
      ...start,
      { type: 'usage', turn: usage(100, 10), total: usage(100, 10) },
      { type: 'usage', turn: usage(40, 4, 30), total: usage(140, 14, 30) },
      { type: 'turn_started', turn: 2 },
      { type: 'usage', turn: usage(200, 20, 150), total: usage(340, 34, 180) },
    ]);
    const run = t.runs[0]!;
    expect(run.turns.map((x) => x.usage)).toEqual([usage(140, 14, 30), usage(200, 20, 150)]);
    expect(run.usage).toEqual(usage(340, 34, 180));
  });

  it('adds up every run of the session', () => {
    const t = play([
      ...start,
      { type: 'usage', turn: usage(10, 1), total: usage(10, 1) },
      { type: 'run_finished', exit: 'end_turn', turns: 1, usage: usage(10, 1) },
      { type: 'user_prompt', text: 'again' },
      { type: 'run_started', agent: 'main', model: 'm1', max_turns: 100 },
      { type: 'turn_started', turn: 1 },
      { type: 'usage', turn: usage(20, 2), total: usage(20, 2) },
    ]);
    expect(t.runs).toHaveLength(2);
    expect(totalUsage(t)).toEqual(usage(30, 3));
  });
});

describe('banners and notices', () => {
  const exits: ExitReason[] = [
    'end_turn',
    'max_turns',
    'aborted',
    'budget_exceeded',
    'loop_detected',
    'error',
  ];
  it.each(exits)('records the run end %s', (exit) => {
    const t = play([...start, { type: 'run_finished', exit, turns: 3, usage: usage(5, 6) }]);
    expect(t.runs[0]!.end).toEqual({ exit, turns: 3, usage: usage(5, 6) });
  });

  it('puts errors, warnings and loop checks in the turn they happened in', () => {
    const t = play([
      { type: 'run_started', agent: 'main', model: 'm1', max_turns: 100 },
      { type: 'warning', message: 'bash withheld' },
      { type: 'turn_started', turn: 1 },
      {
        type: 'loop_detected',
        kind: 'tool_repetition',
        repetitions: 3,
        action: 'warned',
        detail: 'the same grep call 3 times',
      },
      { type: 'error', kind: 'network', message: 'connection dropped' },
    ]);
    const run = t.runs[0]!;
    expect(run.notices).toEqual([{ kind: 'warning', message: 'bash withheld' }]);
    expect(run.turns[0]!.notices).toEqual([
      {
        kind: 'loop',
        loop: 'tool_repetition',
        repetitions: 3,
        action: 'warned',
        detail: 'the same grep call 3 times',
      },
      { kind: 'error', error: 'network', message: 'connection dropped' },
    ]);
  });

  it("shows a call's retries as one line, the latest, before the error", () => {
    const retry = (n: number) => ({
      type: 'warning' as const,
      message: `could not connect to the server; retrying in ${n} s (attempt ${n + 1} of 4)`,
      retry: { attempt: n + 1, attempts: 4 },
    });
    const t = play([
      ...start,
      { type: 'warning', message: 'bash withheld' },
      retry(1),
      retry(2),
      retry(3),
      { type: 'error', kind: 'network', message: 'could not connect to the server' },
      // The next call's retries start a line of their own; so does a plain warning's text.
      retry(1),
      { type: 'warning', message: 'a note (attempt 3 of 4)' },
    ]);
    expect(t.runs[0]!.turns[0]!.notices.map((n) => ('message' in n ? n.message : n.kind))).toEqual([
      'bash withheld',
      'could not connect to the server; retrying in 3 s (attempt 4 of 4)',
      'could not connect to the server',
      'could not connect to the server; retrying in 1 s (attempt 2 of 4)',
      'a note (attempt 3 of 4)',
    ]);
  });
});

describe('a retried call that went through', () => {
  it('no longer says "retrying" once its turn is done', () => {
    const t = play([
      ...start,
      {
        type: 'warning',
        message: 'server error (HTTP 500); retrying in 1 s (attempt 2 of 4)',
        retry: { attempt: 2, attempts: 4 },
      },
      { type: 'text_delta', text: 'Recovered.' },
      { type: 'turn_finished', turn: 1, stop_reason: 'end_turn' },
    ]);
    expect(t.runs[0]!.turns[0]!.notices).toEqual([
      { kind: 'warning', message: 'The model call went through on attempt 2 of 4.' },
    ]);
  });
});

describe('delegated runs', () => {
  const helperEvents: AgentEvent[] = [
    { type: 'run_started', agent: 'helper', model: 'm2', max_turns: 100 },
    { type: 'turn_started', turn: 1 },
    { type: 'text_delta', text: 'looking' },
    { type: 'tool_call_started', summary: '', call: call('h1', 'grep', { pattern: 'x' }) },
    {
      type: 'tool_call_finished', summary: '', status: { kind: 'ok' },
      id: 'h1',
      name: 'grep',
      output: 'no matches',
      is_error: false,
      duration_ms: 3,
    },
    { type: 'run_finished', exit: 'end_turn', turns: 1, usage: usage(7, 8) },
  ];

  it('nests a teammate run under the delegating card', () => {
    const t = play([
      ...start,
      { type: 'tool_call_started', summary: '', call: call('d1', 'delegate_to_agent', { agent: 'helper' }) },
      ...helperEvents.map((e) => delegated('d1', 'helper', e)),
    ]);
    const card = t.runs[0]!.turns[0]!.cards[0]!;
    expect(card.delegated?.agent).toBe('helper');
    const sub = card.delegated!.transcript;
    expect(sub.runs).toHaveLength(1);
    expect(sub.runs[0]!.turns[0]!.text).toBe('looking');
    expect(sub.runs[0]!.turns[0]!.cards[0]).toMatchObject({ name: 'grep', state: 'ok' });
    expect(sub.runs[0]!.end?.exit).toBe('end_turn');
    // The parent's own turn is untouched by the teammate's text.
    expect(t.runs[0]!.turns[0]!.text).toBe('');
    expect(t.runs[0]!.end).toBeUndefined();
  });

  it('nests two levels deep', () => {
    const inner = delegated('h1', 'critic', { type: 'text_delta', text: 'deep' });
    const t = play([
      ...start,
      { type: 'tool_call_started', summary: '', call: call('d1', 'delegate_to_agent') },
      delegated('d1', 'helper', { type: 'run_started', agent: 'helper', model: 'm2', max_turns: 100 }),
      delegated('d1', 'helper', { type: 'turn_started', turn: 1 }),
      delegated('d1', 'helper', { type: 'tool_call_started', summary: '', call: call('h1', 'delegate_to_agent') }),
      delegated('d1', 'helper', inner),
    ]);
    const helperCard = t.runs[0]!.turns[0]!.cards[0]!.delegated!.transcript.runs[0]!.turns[0]!
      .cards[0]!;
    expect(helperCard.delegated?.agent).toBe('critic');
    expect(helperCard.delegated?.transcript.runs[0]!.turns[0]!.text).toBe('deep');
  });
});
