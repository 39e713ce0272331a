import { describe, expect, it } from 'vitest';
import type { AgentEvent, Message, NetworkConnection } from './bindings';
import { groupConnections, ruleFor, targetOf } from './connections';
import { fromStored } from './stored';
import { emptyTranscript, reduceAll, type TranscriptAction } from './transcript';
import { assistant, call, delegated, kept, results, text, toolUse, usage, userText } from '../test/events';

const conn = (over: Partial<NetworkConnection> = {}): NetworkConnection => ({
  call_id: 'c1',
  method: 'CONNECT',
  host: 'registry.npmjs.org',
  port: 443,
  allowed: true,
  asked: false,
  rule: 'network.allow[0]',
  why: 'registry.npmjs.org:443 is allowed by network.allow[0] (`registry.npmjs.org`)',
  bytes_up: 100,
  bytes_down: 2048,
  duration_ms: 40,
  ...over,
});

const event = (c: NetworkConnection): AgentEvent => ({ type: 'connection', ...c });

const curl = call('c1', 'bash', { command: 'npm install left-pad' });
const run = (...middle: AgentEvent[]): TranscriptAction[] => [
  { type: 'user_prompt', text: 'install it' },
  { type: 'run_started', agent: 'main', model: 'm1', max_turns: 100 },
  { type: 'turn_started', turn: 1 },
  { type: 'usage', turn: usage(10, 5), total: usage(10, 5) },
  { type: 'turn_finished', turn: 1, stop_reason: 'tool_use' },
  { type: 'tool_call_started', summary: 'npm install left-pad', call: curl },
  ...middle,
  { type: 'tool_call_finished', summary: 'npm install left-pad', status: { kind: 'ok' }, id: 'c1', name: 'bash', output: 'added 1 package', is_error: false, duration_ms: 900 },
  { type: 'turn_started', turn: 2 },
  { type: 'text_delta', text: 'Done.' },
  { type: 'usage', turn: usage(20, 3), total: usage(30, 8) },
  { type: 'turn_finished', turn: 2, stop_reason: 'end_turn' },
  { type: 'run_finished', exit: 'end_turn', turns: 2, usage: usage(30, 8) },
];
const messages: Message[] = [
  userText('install it'),
  assistant(toolUse(curl)),
  results(['c1', 'added 1 package']),
  assistant(text('Done.')),
];

const cardOf = (actions: TranscriptAction[]) => reduceAll(emptyTranscript(), actions).runs[0]!.turns[0]!.cards[0]!;

describe('connections in the reducer', () => {
  it('attaches each connection to the card of the call that made it, in order, without its tag', () => {
    const refused = conn({ host: 'evil.example', allowed: false, rule: 'network.deny[0]', bytes_down: 0, bytes_up: 0 });
    const card = cardOf(run(event(conn()), event(refused)));
    expect(card.connections).toEqual([conn(), refused]);
    expect(card.state).toBe('ok');
  });

  it('shows them while the call still runs', () => {
    const card = cardOf(run(event(conn())).slice(0, 7));
    expect(card.state).toBe('running');
    expect(card.connections).toHaveLength(1);
  });

  it('drops a connection of no call in sight', () => {
    const t = reduceAll(emptyTranscript(), run(event(conn({ call_id: 'gone' }))));
    expect(t.runs[0]!.turns.flatMap((turn) => turn.cards).map((c) => c.connections)).toEqual([undefined]);
  });

  it("puts a teammate's connections under the teammate's call", () => {
    const inner = call('h1', 'bash', { command: 'curl -s https://docs.rs' });
    const card = cardOf([
      ...run().slice(0, 5),
      { type: 'tool_call_started', summary: '', call: call('d1', 'delegate_to_agent') },
      delegated('d1', 'helper', { type: 'run_started', agent: 'helper', model: 'm2', max_turns: 10 }),
      delegated('d1', 'helper', { type: 'turn_started', turn: 1 }),
      delegated('d1', 'helper', { type: 'tool_call_started', summary: '', call: inner }),
      delegated('d1', 'helper', event(conn({ call_id: 'h1', host: 'docs.rs' }))),
    ]);
    expect(card.connections).toBeUndefined();
    const teammate = card.delegated!.transcript.runs[0]!.turns[0]!.cards[0]!;
    expect(teammate.id).toBe('h1');
    expect(teammate.connections?.map((c) => c.host)).toEqual(['docs.rs']);
  });

  it('never changes the transcript it was given', () => {
    const before = reduceAll(emptyTranscript(), run(event(conn())).slice(0, 7));
    const first = before.runs[0]!.turns[0]!.cards[0]!.connections;
    const after = reduceAll(before, [event(conn({ host: 'b.example' }))]);
    expect(first).toHaveLength(1);
    expect(after.runs[0]!.turns[0]!.cards[0]!.connections).toHaveLength(2);
  });

  it('survives reopening the session: the stored events rebuild the same lines', () => {
    const actions = run(event(conn()), event(conn({ host: 'evil.example', allowed: false })));
    const events = actions.filter((a): a is AgentEvent => a.type !== 'user_prompt');
    const stored = fromStored(messages, kept(events));
    expect(stored).toEqual(reduceAll(emptyTranscript(), actions));
    expect(stored.runs[0]!.turns[0]!.cards[0]!.connections?.map((c) => c.host)).toEqual([
      'registry.npmjs.org',
      'evil.example',
    ]);
  });

  it("survives reopening for a teammate's call too", () => {
    const inner = call('h1', 'bash', { command: 'curl -s https://docs.rs' });
    const actions: TranscriptAction[] = [
      ...run().slice(0, 5),
      { type: 'tool_call_started', summary: '', call: call('d1', 'delegate_to_agent') },
      delegated('d1', 'helper', { type: 'run_started', agent: 'helper', model: 'm2', max_turns: 10 }),
      delegated('d1', 'helper', { type: 'turn_started', turn: 1 }),
      delegated('d1', 'helper', { type: 'usage', turn: usage(1, 1), total: usage(1, 1) }),
      delegated('d1', 'helper', { type: 'turn_finished', turn: 1, stop_reason: 'tool_use' }),
      delegated('d1', 'helper', { type: 'tool_call_started', summary: '', call: inner }),
      delegated('d1', 'helper', event(conn({ call_id: 'h1', host: 'docs.rs' }))),
      delegated('d1', 'helper', { type: 'tool_call_finished', summary: '', status: { kind: 'ok' }, id: 'h1', name: 'bash', output: 'ok', is_error: false, duration_ms: 5 }),
      delegated('d1', 'helper', { type: 'run_finished', exit: 'end_turn', turns: 1, usage: usage(1, 1) }),
      { type: 'tool_call_finished', summary: '', status: { kind: 'ok' }, id: 'd1', name: 'delegate_to_agent', output: 'done', is_error: false, duration_ms: 50 },
    ];
    const events = actions.filter((a): a is AgentEvent => a.type !== 'user_prompt');
    const stored = fromStored(
      [userText('install it'), assistant(toolUse(call('d1', 'delegate_to_agent'))), results(['d1', 'done'])],
      kept(events),
    );
    const teammate = stored.runs[0]!.turns[0]!.cards[0]!.delegated!.transcript.runs[0]!.turns[0]!.cards[0]!;
    expect(teammate.connections?.map((c) => c.host)).toEqual(['docs.rs']);
  });
});

describe('groupConnections', () => {
  it('groups by host, port and outcome, summing bytes; refused groups first', () => {
    const groups = groupConnections([
      conn(),
      conn({ host: 'evil.example', allowed: false, rule: undefined, why: 'no rule names evil.example:443', bytes_down: 0, bytes_up: 0 }),
      conn({ bytes_down: 1000 }),
      conn({ port: 80, method: 'GET' }),
      conn({ error: 'connection reset' }),
    ]);
    expect(groups.map((g) => [g.target, g.allowed, g.count])).toEqual([
      ['evil.example:443', false, 1],
      ['registry.npmjs.org:443', true, 3],
      ['registry.npmjs.org:80', true, 1],
    ]);
    expect(groups[0]!.decidedBy).toBe('no rule names evil.example:443');
    expect(groups[1]).toMatchObject({ decidedBy: 'network.allow[0]', bytesDown: 2048 + 1000 + 2048, bytesUp: 300, failed: 1, error: 'connection reset' });
  });

  it('puts failed ones (never let through because of an error) apart from refused ones, after them', () => {
    const groups = groupConnections([
      conn(),
      conn({ host: 'unknown.test', allowed: false, rule: undefined, why: 'cannot resolve', error: 'cannot resolve' }),
      conn({ host: 'evil.example', allowed: false, rule: 'network.deny[0]' }),
    ]);
    expect(groups.map((g) => [g.outcome, g.target, g.decidedBy])).toEqual([
      ['refused', 'evil.example:443', 'network.deny[0]'],
      ['failed', 'unknown.test:443', ''],
      ['allowed', 'registry.npmjs.org:443', 'network.allow[0]'],
    ]);
    expect(groups.map(ruleFor)).toEqual(['evil.example:443', null, null]);
  });

  it('names what is known of the target', () => {
    expect(targetOf({ host: 'a.example', port: 443 })).toBe('a.example:443');
    expect(targetOf({ host: '::1', port: 80 })).toBe('[::1]:80');
    expect(targetOf({ host: 'a.example' })).toBe('a.example');
    expect(targetOf({})).toBe('no request');
  });
});
