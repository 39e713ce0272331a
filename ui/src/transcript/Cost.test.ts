import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent, Cost } from '../lib/bindings';
import { formatCost, pricingText } from '../lib/format';
import { SessionController } from '../lib/session.svelte';
import { emptyTranscript, reduce, totalCost, type TranscriptAction } from '../lib/transcript';
import { usage } from '../test/events';
import TranscriptPanel from './TranscriptPanel.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

const priced = (usd: number): Cost => ({ usd, complete: true, local: false });

describe('costs in words', () => {
  it('says dollars, local, unknown and a lower bound as the CLI does', () => {
    expect(formatCost(priced(0.0042))).toBe('$0.0042');
    expect(formatCost(priced(3.3))).toBe('$3.30');
    expect(formatCost({ usd: 0, complete: true, local: true })).toBe('$0 (local model)');
    expect(formatCost({ usd: 0, complete: false, local: false })).toBe('price unknown');
    expect(formatCost({ usd: 0.5, complete: false, local: false })).toBe('at least $0.50 (some prices unknown)');
    expect(pricingText({ kind: 'priced', price: { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 }, source: 'the page' })).toBe(
      '$3 in, $15 out, cache write $3.75, read $0.3 per million tokens (the page)',
    );
  });

  it('sums runs, and a run from before costs with tokens makes the total a lower bound', () => {
    const run = (cost?: Cost): TranscriptAction[] => [
      { type: 'user_prompt', text: 'x' },
      { type: 'run_started', agent: 'main', model: 'm', max_turns: 10 },
      { type: 'run_finished', exit: 'end_turn', turns: 1, usage: usage(10, 5), cost },
    ];
    const play = (actions: TranscriptAction[]) => actions.reduce(reduce, emptyTranscript());
    expect(totalCost(emptyTranscript())).toBeUndefined();
    expect(totalCost(play([...run(priced(0.25)), ...run(priced(0.5))]))).toEqual(priced(0.75));
    expect(totalCost(play([...run(priced(0.25)), ...run()]))).toEqual({ usd: 0.25, complete: false, local: false });
  });
});

describe('the transcript shows what a run costs', () => {
  let emit: (e: AgentEvent) => void = () => {};
  beforeEach(() => {
    vi.resetAllMocks();
    api.sendPrompt.mockImplementation(async (_p, _s, _t, onEvent) => {
      emit = onEvent;
      return 's1';
    });
  });
  afterEach(cleanup);

  it('per turn, per run and for the session, with where the prices come from', async () => {
    const session = new SessionController('/p');
    render(TranscriptPanel, { props: { session } });
    await fireEvent.input(screen.getByTestId('prompt-input'), { target: { value: 'go' } });
    await fireEvent.keyDown(screen.getByTestId('prompt-input'), { key: 'Enter', ctrlKey: true });
    await vi.waitFor(() => expect(api.sendPrompt).toHaveBeenCalled());
    emit({
      type: 'run_started',
      agent: 'main',
      model: 'claude-sonnet-4-5',
      max_turns: 10,
      pricing: { kind: 'priced', price: { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 }, source: 'the page' },
    });
    emit({ type: 'turn_started', turn: 1 });
    emit({ type: 'text_delta', text: 'Done.' });
    emit({ type: 'usage', turn: usage(1000, 100), total: usage(1000, 100), turn_cost: priced(0.0045), total_cost: priced(0.0045) });
    emit({ type: 'turn_finished', turn: 1, stop_reason: 'end_turn' });
    await vi.waitFor(() => expect(screen.getByTestId('cost-total')).toHaveTextContent('$0.0045'));
    expect(screen.getByTestId('cost-total')).toHaveAttribute('title', expect.stringContaining('$3 in, $15 out'));
    expect(screen.getByTestId('usage-turn')).toHaveTextContent('1,000 in · 100 out · $0.0045');
    emit({ type: 'run_finished', exit: 'end_turn', turns: 1, usage: usage(1000, 100), cost: priced(0.0045) });
    expect(await screen.findByTestId('run-cost')).toHaveTextContent('$0.0045');
  });
});
