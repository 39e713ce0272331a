import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent } from '../lib/bindings';
import { SessionController } from '../lib/session.svelte';
import { call, usage } from '../test/events';
import TranscriptPanel from './TranscriptPanel.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

let emit: (e: AgentEvent) => void = () => {};
beforeEach(() => {
  vi.resetAllMocks();
  api.sendPrompt.mockImplementation(async (_p, _s, _t, onEvent) => {
    emit = onEvent;
    return 's1';
  });
  api.approve.mockResolvedValue(null);
  api.stopRun.mockResolvedValue(null);
});

async function startRun() {
  const session = new SessionController('/p');
  render(TranscriptPanel, { props: { session } });
  const input = screen.getByTestId('prompt-input');
  await fireEvent.input(input, { target: { value: 'list files' } });
  await fireEvent.keyDown(input, { key: 'Enter', ctrlKey: true });
  await vi.waitFor(() => expect(api.sendPrompt).toHaveBeenCalled());
  return session;
}

describe('TranscriptPanel', () => {
  it('sends with Ctrl+Enter, shows the prompt, and locks send while running', async () => {
    await startRun();
    expect(api.sendPrompt).toHaveBeenCalledWith('/p', null, 'list files', expect.any(Function));
    expect(await screen.findByTestId('message-user')).toHaveTextContent('list files');
    expect(screen.getByTestId('send-button')).toBeDisabled();
    expect(screen.getByTestId('stop-button')).toBeEnabled();
    expect(screen.getByTestId('prompt-input')).toHaveValue('');
  });

  it('answers an approval of the live run and stops it', async () => {
    await startRun();
    const bash = call('c1', 'bash', { command: 'ls' });
    emit({ type: 'run_started', agent: 'main', model: 'm', max_turns: 100 });
    emit({ type: 'turn_started', turn: 1 });
    emit({ type: 'tool_call_started', summary: '', call: bash });
    emit({ type: 'approval_requested', summary: '', request_id: 'approval-1', call: bash });
    await fireEvent.click(await screen.findByTestId('approve-deny'));
    expect(api.approve).toHaveBeenCalledWith('/p', 's1', 'approval-1', 'deny');

    await fireEvent.click(screen.getByTestId('stop-button'));
    expect(api.stopRun).toHaveBeenCalledWith('/p', 's1');
    emit({ type: 'run_finished', exit: 'aborted', turns: 1, usage: usage(3, 4) });
    expect(await screen.findByTestId('run-banner')).toHaveAttribute('data-exit', 'aborted');
    expect(screen.getByTestId('usage-total')).toHaveTextContent('3 in · 4 out');
    expect(screen.getByTestId('stop-button')).toBeDisabled();
  });

  it('shows a failed send next to the composer', async () => {
    api.sendPrompt.mockRejectedValue({ code: 'provider', message: 'No API key for anthropic.' });
    await startRun();
    expect(await screen.findByTestId('command-error')).toHaveTextContent('No API key for anthropic.');
    expect(screen.getByTestId('prompt-input')).toHaveValue('list files');
  });
});
