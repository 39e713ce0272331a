import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent, Plan } from '../lib/bindings';
import { SessionController } from '../lib/session.svelte';
import { currentPlan, emptyTranscript, reduce, type TranscriptAction } from '../lib/transcript';
import { rewound } from '../test/changes';
import TranscriptPanel from './TranscriptPanel.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

const plan = (...steps: [string, Plan['items'][number]['status'], string?][]): AgentEvent => ({
  type: 'plan',
  items: steps.map(([content, status, active_form]) => ({ content, status, active_form })),
});

const first = plan(['Read the code', 'in_progress', 'Reading the code'], ['Fix the bug', 'pending'], ['Run the tests', 'pending']);
const second = plan(['Read the code', 'completed'], ['Fix the bug', 'in_progress', 'Fixing the bug'], ['Run the tests', 'pending']);

const play = (actions: TranscriptAction[]) => actions.reduce(reduce, emptyTranscript());
const turn = (n: number, ...events: AgentEvent[]): TranscriptAction[] => [
  { type: 'turn_started', turn: n },
  ...events,
  { type: 'turn_finished', turn: n, stop_reason: 'tool_use' },
];

describe('currentPlan', () => {
  it('is the last plan the conversation still holds', () => {
    const start: TranscriptAction[] = [
      { type: 'user_prompt', text: 'fix it' },
      { type: 'run_started', agent: 'main', model: 'm', max_turns: 100 },
    ];
    expect(currentPlan(play(start))).toBeNull();
    const t = play([...start, ...turn(1, first), ...turn(2, second)]);
    expect(currentPlan(t)?.items.map((i) => i.status)).toEqual(['completed', 'in_progress', 'pending']);
    // A rewind that sets the second turn aside brings back the first plan.
    const back = reduce(t, rewound({ prompt: 1, turn: 2 }));
    expect(currentPlan(back)?.items[0]!.status).toBe('in_progress');
    // An emptied list clears it.
    expect(currentPlan(play([...start, ...turn(1, first), ...turn(2, plan())]))).toBeNull();
  });

  it("keeps a teammate's plan out of the agent's", () => {
    const t = play([
      { type: 'user_prompt', text: 'x' },
      { type: 'run_started', agent: 'main', model: 'm', max_turns: 100 },
      ...turn(1, { type: 'delegated', agent: 'helper', depth: 1, call_id: 'd1', event: first }),
    ]);
    expect(currentPlan(t)).toBeNull();
  });
});

describe('the plan above the composer', () => {
  let emit: (e: AgentEvent) => void = () => {};
  beforeEach(() => {
    vi.resetAllMocks();
    api.sendPrompt.mockImplementation(async (_p, _s, _t, onEvent) => {
      emit = onEvent;
      return 's1';
    });
  });
  afterEach(cleanup);

  it('appears with the first plan, follows each update live, and folds to the step under way', async () => {
    const session = new SessionController('/p');
    render(TranscriptPanel, { props: { session } });
    await fireEvent.input(screen.getByTestId('prompt-input'), { target: { value: 'fix it' } });
    await fireEvent.keyDown(screen.getByTestId('prompt-input'), { key: 'Enter', ctrlKey: true });
    await vi.waitFor(() => expect(api.sendPrompt).toHaveBeenCalled());
    emit({ type: 'run_started', agent: 'main', model: 'm', max_turns: 100 });
    emit({ type: 'turn_started', turn: 1 });
    expect(screen.queryByTestId('plan')).toBeNull();

    emit(first);
    await vi.waitFor(() => expect(screen.getByTestId('plan-progress')).toHaveTextContent('0 of 3 done'));
    const steps = () => screen.getAllByTestId('plan-step');
    expect(steps().map((s) => s.dataset.status)).toEqual(['in_progress', 'pending', 'pending']);
    // While running, the step under way reads as what is being done.
    expect(steps()[0]).toHaveTextContent('under way: Reading the code');

    emit({ type: 'turn_started', turn: 2 });
    emit(second);
    await vi.waitFor(() => expect(screen.getByTestId('plan-progress')).toHaveTextContent('1 of 3 done'));
    expect(steps()[0]).toHaveTextContent('done: Read the code');

    await fireEvent.click(screen.getByTestId('plan-toggle'));
    expect(screen.getByTestId('plan-toggle')).toHaveAttribute('aria-expanded', 'false');
    expect(screen.queryAllByTestId('plan-step')).toHaveLength(0);
    expect(screen.getByTestId('plan')).toHaveTextContent('Fixing the bug');

    emit({ type: 'run_finished', exit: 'end_turn', turns: 2, usage: { input_tokens: 1, output_tokens: 1, cache_read_tokens: 0 } });
    await fireEvent.click(screen.getByTestId('plan-toggle'));
    // Once the run is over, a step reads as written.
    await vi.waitFor(() => expect(steps()[1]).toHaveTextContent('under way: Fix the bug'));
  });
});
