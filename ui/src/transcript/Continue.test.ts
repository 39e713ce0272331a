import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent, ExitReason } from '../lib/bindings';
import { CONTINUE_PROMPT, SessionController } from '../lib/session.svelte';
import { emptyTranscript, reduceAll, type TranscriptAction } from '../lib/transcript';
import { stored } from '../test/changes';
import { chatRun, chatSession } from '../test/compaction';
import { kept, usage } from '../test/events';
import TranscriptPanel from './TranscriptPanel.svelte';
import TranscriptView from './TranscriptView.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

const events = (actions: TranscriptAction[]) => kept(actions.filter((a): a is AgentEvent => a.type !== 'user_prompt'));

let emit: (e: AgentEvent) => void = () => {};
beforeEach(() => {
  vi.resetAllMocks();
  api.projectInstructions.mockResolvedValue({ files: [], text: '', notices: [] });
  api.sendPrompt.mockImplementation(async (_p, _s, _t, onEvent) => {
    emit = onEvent;
    return 's1';
  });
});

async function open(actions: TranscriptAction[], messages = chatSession().messages) {
  api.loadSession.mockResolvedValue(stored(messages, events(actions)));
  const s = new SessionController('/p');
  render(TranscriptPanel, { props: { session: s } });
  await s.open('s1');
  return s;
}

describe('Continue after the turn limit or a failure', () => {
  it('is offered when the last run used all its turns, and sends the prompt in the same session', async () => {
    const run = chatRun(1, 'go', 2, { maxTurns: 2, exit: 'max_turns' });
    const s = await open(run.actions, run.messages);
    const banner = screen.getByTestId('run-banner');
    expect(banner).toHaveAttribute('data-exit', 'max_turns');
    s.draft = 'my own draft';
    await fireEvent.click(within(banner).getByTestId('continue-button'));
    expect(api.sendPrompt).toHaveBeenCalledWith('/p', 's1', CONTINUE_PROMPT, expect.any(Function));
    expect(CONTINUE_PROMPT).toBe('Continue where you left off.');
    // The prompt shows like any other; the user's draft stays in the composer.
    await vi.waitFor(() => expect(screen.getAllByTestId('message-user').at(-1)).toHaveTextContent(CONTINUE_PROMPT));
    expect(screen.getByTestId('prompt-input')).toHaveValue('my own draft');
    // While the new run is live there is nothing to continue.
    expect(screen.queryByTestId('continue-button')).toBeNull();
    emit({ type: 'run_started', agent: 'main', model: 'm1', max_turns: 2 });
    emit({ type: 'run_finished', exit: 'end_turn', turns: 0, usage: usage(0, 0) });
    await vi.waitFor(() => expect(screen.getAllByTestId('run-banner')).toHaveLength(2));
    expect(screen.queryByTestId('continue-button')).toBeNull();
  });

  it('is offered as Try again after a failed run, and sends the same prompt', async () => {
    const run = chatRun(1, 'go', 1);
    const actions = run.actions.map((a) => (a.type === 'run_finished' ? { ...a, exit: 'error' as const } : a));
    await open(actions, run.messages);
    const button = within(screen.getByTestId('run-banner')).getByTestId('continue-button');
    expect(button).toHaveTextContent('Try again');
    await fireEvent.click(button);
    expect(api.sendPrompt).toHaveBeenCalledWith('/p', 's1', CONTINUE_PROMPT, expect.any(Function));
  });

  it.each<ExitReason>(['end_turn', 'aborted', 'budget_exceeded'])('is not offered after %s', async (exit) => {
    const run = chatRun(1, 'go', 1);
    const actions = run.actions.map((a) => (a.type === 'run_finished' ? { ...a, exit } : a));
    await open(actions, run.messages);
    expect(screen.getByTestId('run-banner')).toHaveAttribute('data-exit', exit);
    expect(screen.queryByTestId('continue-button')).toBeNull();
  });

  it('is offered on the last run only, and not in a transcript without a session', async () => {
    const first = chatRun(1, 'go', 2, { maxTurns: 2, exit: 'max_turns' });
    const both = chatSession(first, chatRun(2, 'again', 1));
    await open(both.actions, both.messages);
    expect(screen.getAllByTestId('run-banner').map((b) => b.dataset.exit)).toEqual(['max_turns', 'end_turn']);
    expect(screen.queryByTestId('continue-button')).toBeNull();

    render(TranscriptView, { props: { transcript: reduceAll(emptyTranscript(), first.actions) } });
    expect(screen.getAllByTestId('run-banner').at(-1)).toHaveAttribute('data-exit', 'max_turns');
    expect(screen.queryByTestId('continue-button')).toBeNull();
  });

  it('a failed send shows the error and leaves the draft alone', async () => {
    const run = chatRun(1, 'go', 2, { maxTurns: 2, exit: 'max_turns' });
    const s = await open(run.actions, run.messages);
    api.sendPrompt.mockRejectedValue({ code: 'provider', message: 'No API key for anthropic.' });
    s.draft = 'draft';
    await fireEvent.click(screen.getByTestId('continue-button'));
    expect(await screen.findByTestId('command-error')).toHaveTextContent('No API key for anthropic.');
    expect(screen.getByTestId('prompt-input')).toHaveValue('draft');
    expect(screen.getByTestId('continue-button')).toBeInTheDocument();
  });
});

describe('turn n of max', () => {
  /** A live run of at most 30 turns, at its first turn. */
  async function live() {
    const s = new SessionController('/p');
    render(TranscriptPanel, { props: { session: s } });
    s.draft = 'go';
    await s.send();
    emit({ type: 'run_started', agent: 'main', model: 'm1', max_turns: 30 });
    emit({ type: 'turn_started', turn: 1 });
  }

  it('each turn says which of how many it was; the live run says where it is', async () => {
    await live();
    emit({ type: 'usage', turn: usage(10, 1), total: usage(10, 1) });
    emit({ type: 'turn_finished', turn: 1, stop_reason: 'tool_use' });
    emit({ type: 'turn_started', turn: 2 });
    await vi.waitFor(() => expect(screen.getByTestId('run-progress')).toHaveTextContent('running… turn 2 of 30'));
    expect(screen.getByTestId('usage-turn')).toHaveTextContent('Turn 1 of 30 · 10 in · 1 out');
  });

  it('says starting until the run has started (its MCP servers may take a while)', async () => {
    const s = new SessionController('/p');
    render(TranscriptPanel, { props: { session: s } });
    s.draft = 'go';
    await s.send();
    await vi.waitFor(() => expect(screen.getByTestId('run-progress')).toHaveTextContent(/^starting…$/));
    emit({ type: 'run_started', agent: 'main', model: 'm1', max_turns: 30 });
    await vi.waitFor(() => expect(screen.getByTestId('run-progress')).toHaveTextContent(/^running…$/));
  });

  it('a call that failed before any tokens says its turn without "0 in · 0 out"', async () => {
    await live();
    emit({ type: 'usage', turn: usage(0, 0), total: usage(0, 0) });
    emit({ type: 'error', kind: 'network', message: 'could not connect to the server' });
    emit({ type: 'run_finished', exit: 'error', turns: 1, usage: usage(0, 0) });
    await vi.waitFor(() => expect(screen.getByTestId('run-banner')).toHaveAttribute('data-exit', 'error'));
    expect(screen.getByTestId('usage-turn')).toHaveTextContent(/^Turn 1 of 30$/);
  });

  it('marks an answer cut off by a dropped stream, and not a finished one', async () => {
    await live();
    emit({ type: 'text_delta', text: 'This answer will be cut off so' });
    emit({ type: 'error', kind: 'network', message: 'the stream was dropped' });
    emit({ type: 'run_finished', exit: 'error', turns: 1, usage: usage(0, 0) });
    expect(await screen.findByTestId('answer-cut-off')).toHaveTextContent('Incomplete');
  });

  it('does not mark a finished answer', async () => {
    const run = chatRun(1, 'go', 1);
    await open(run.actions, run.messages);
    expect(screen.getAllByTestId('message-assistant').length).toBeGreaterThan(0);
    expect(screen.queryByTestId('answer-cut-off')).toBeNull();
  });

  it('says no limit it does not know (sessions before it was recorded)', async () => {
    const run = chatRun(1, 'go', 1, { maxTurns: 0 });
    await open(run.actions, run.messages);
    expect(screen.getByTestId('usage-turn')).toHaveTextContent(/^Turn 1 · 100 in · 10 out$/);
  });
});
