import { render, screen, within } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import type { AgentEvent } from '../lib/bindings';
import { emptyTranscript, reduceAll } from '../lib/transcript';
import { fromStored } from '../lib/stored';
import { assistant, call, kept, results, toolUse, userText } from '../test/events';
import RunView from './RunView.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));

const run: AgentEvent[] = [
  { type: 'run_started', agent: 'main', model: 'm', max_turns: 10 },
  {
    type: 'hook',
    point: 'user_prompt_submit',
    hook: 'user_prompt_submit · ./ticket.sh',
    outcome: 'context',
    duration_ms: 12,
    message: 'ticket PAD-12',
  },
  { type: 'turn_started', turn: 1 },
  { type: 'tool_call_started', call: call('c1', 'bash', { command: 'git push' }), summary: 'git push' },
  {
    type: 'hook',
    point: 'pre_tool_use',
    hook: 'pre_tool_use · bash · ./no-push.sh',
    call_id: 'c1',
    outcome: 'deny',
    duration_ms: 7,
    message: 'pushing is for humans',
  },
  {
    type: 'tool_call_finished',
    id: 'c1',
    name: 'bash',
    summary: 'git push',
    output: 'Not run: a hook refused it: pushing is for humans',
    is_error: true,
    status: { kind: 'denied', reason: 'hook' },
    duration_ms: 7,
    why: 'preset full',
  },
];

describe('hook runs in the transcript', () => {
  it('puts a call’s hooks under its card and the prompt’s under the run', () => {
    const t = reduceAll(emptyTranscript(), [{ type: 'user_prompt', text: 'push it' }, ...run]);
    const r = t.runs[0]!;
    expect(r.hooks?.map((h) => h.outcome)).toEqual(['context']);
    expect(r.turns[0]!.cards[0]!.hooks?.map((h) => h.message)).toEqual(['pushing is for humans']);

    render(RunView, { props: { run: r, index: 0 } });
    const lines = screen.getAllByTestId('hook-run');
    expect(lines.map((l) => l.dataset.outcome)).toEqual(['context', 'deny']);
    expect(lines[1]).toHaveTextContent('pre_tool_use · bash · ./no-push.sh');
    expect(lines[1]).toHaveTextContent('refused it');
    expect(within(lines[1]!).getByTestId('hook-message')).toHaveTextContent('pushing is for humans');
    expect(screen.getByTestId('tool-card')).toHaveTextContent('denied by a hook');
  });

  it('drops a hook of a call no longer in sight rather than inventing a card', () => {
    const t = reduceAll(emptyTranscript(), [
      { type: 'user_prompt', text: 'x' },
      { type: 'run_started', agent: 'main', model: 'm', max_turns: 10 },
      { type: 'hook', point: 'post_tool_use', hook: 'h', call_id: 'gone', outcome: 'continue', duration_ms: 1 },
    ]);
    expect(t.runs[0]!.turns.flatMap((turn) => turn.cards)).toEqual([]);
    expect(t.runs[0]!.hooks).toBeUndefined();
  });
});

describe('hook runs in a stored session', () => {
  it('come back under their call and their run', () => {
    const messages = [
      userText('push it'),
      assistant(toolUse(call('c1', 'bash', { command: 'git push' }))),
      results(['c1', 'Not run: a hook refused it: pushing is for humans', true]),
    ];
    const events: AgentEvent[] = [
      ...run.slice(0, 2),
      { type: 'turn_started', turn: 1 },
      { type: 'turn_finished', turn: 1, stop_reason: 'tool_use' },
      ...run.slice(4),
      { type: 'run_finished', exit: 'end_turn', turns: 1, usage: { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0 } },
    ];
    const t = fromStored(messages, kept(events));
    const r = t.runs[0]!;
    expect(r.hooks?.map((h) => h.point)).toEqual(['user_prompt_submit']);
    expect(r.turns[0]!.cards[0]!.hooks?.map((h) => h.outcome)).toEqual(['deny']);
  });
});
