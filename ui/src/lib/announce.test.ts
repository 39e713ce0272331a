import { describe, expect, it } from 'vitest';
import type { AgentEvent } from './bindings';
import { announce } from './announce';
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
});
