import { describe, expect, it } from 'vitest';
import type { AgentEvent } from './bindings';
import { announce, seen } from './announce';
import { emptyTranscript, reduceAll } from './transcript';

const bash = { id: 'c1', name: 'bash', input: { command: 'ls' } };
const usage = { input_tokens: 1, output_tokens: 1, cache_read_tokens: 0 };

describe('announce', () => {
  it('says each finished answer, each new approval and the end, once', () => {
    const memory = { said: new Set<string>() };
    let t = reduceAll(emptyTranscript(), [
      { type: 'user_prompt', text: 'go' },
      { type: 'run_started', agent: 'main', model: 'm', max_turns: 10 },
      { type: 'turn_started', turn: 1 },
      { type: 'text_delta', text: 'Listing the files.' },
      { type: 'turn_finished', turn: 1, stop_reason: 'tool_use' },
      { type: 'approval_requested', summary: 'ls', request_id: 'r1', call: bash },
    ] as AgentEvent[]);
    expect(announce(t, memory)).toEqual({
      polite: 'Answer: Listing the files.',
      assertive: 'Approval needed: bash ls. Press y to allow once, n to deny.',
    });
    expect(announce(t, memory)).toEqual({});
    t = reduceAll(t, [
      { type: 'run_finished', exit: 'end_turn', turns: 1, usage },
    ] as AgentEvent[]);
    expect(announce(t, memory)).toEqual({ polite: 'Run ended: end turn.' });
  });

  it('reads an opened transcript without announcing it, then announces what comes after', () => {
    const turns = (from: number, n: number, stop = true) =>
      Array.from({ length: n }, (_, i) => [
        { type: 'turn_started', turn: from + i },
        { type: 'text_delta', text: `Answer ${from + i}` },
        ...(stop ? [{ type: 'turn_finished', turn: from + i, stop_reason: 'end_turn' }] : []),
      ]).flat();
    let t = reduceAll(emptyTranscript(), [
      { type: 'user_prompt', text: 'go' },
      { type: 'run_started', agent: 'main', model: 'm', max_turns: 10_000 },
      ...turns(1, 3_000),
      { type: 'turn_started', turn: 3_001 },
      { type: 'text_delta', text: 'Still writing' },
    ] as AgentEvent[]);
    const memory = seen(t);
    expect(memory.run).toBe(0);
    expect(memory.turn).toBe(3_000);
    expect(announce(t, memory)).toEqual({});
    // The open last turn finishes: said once.
    t = reduceAll(t, [
      { type: 'turn_finished', turn: 3_001, stop_reason: 'tool_use' },
      { type: 'approval_requested', summary: 'ls', request_id: 'r9', call: bash },
    ] as AgentEvent[]);
    expect(announce(t, memory)).toEqual({
      polite: 'Answer: Still writing',
      assertive: 'Approval needed: bash ls. Press y to allow once, n to deny.',
    });
    expect(announce(t, memory)).toEqual({});
    // A new prompt's run and its answer.
    t = reduceAll(t, [
      { type: 'run_finished', exit: 'end_turn', turns: 3_001, usage },
      { type: 'user_prompt', text: 'more' },
      { type: 'run_started', agent: 'main', model: 'm', max_turns: 10 },
      ...turns(1, 1),
    ] as AgentEvent[]);
    expect(announce(t, memory)).toEqual({ polite: 'Answer: Answer 1' });
  });

  it('a shorter transcript put in place (a rewind) announces nothing old', () => {
    const t = reduceAll(emptyTranscript(), [
      { type: 'user_prompt', text: 'go' },
      { type: 'run_started', agent: 'main', model: 'm', max_turns: 10 },
      { type: 'turn_started', turn: 1 },
      { type: 'text_delta', text: 'Old answer' },
      { type: 'turn_finished', turn: 1, stop_reason: 'end_turn' },
      { type: 'run_finished', exit: 'end_turn', turns: 1, usage },
    ] as AgentEvent[]);
    const memory = { said: new Set<string>(), run: 5, turn: 40 };
    // Clamped to the transcript: the last run is looked at again, its items said once.
    expect(announce(t, memory).polite).toBe('Answer: Old answer Run ended: end turn.');
    expect(announce(t, seen(t))).toEqual({});
  });
});
