import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent, ProjectInstructions } from '../lib/bindings';
import { SessionController } from '../lib/session.svelte';
import { usage } from '../test/events';
import TranscriptPanel from './TranscriptPanel.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

const agents: ProjectInstructions = {
  files: [{ path: 'AGENTS.md', bytes: 40_000, tokens: 1_234, truncated: true }],
  text: '# Project instructions (AGENTS.md)\n\nUse tabs.',
  notices: ['AGENTS.md is 40 KB; only its first 32 KB are given to the agent'],
};
const none: ProjectInstructions = { files: [], text: '', notices: [] };

beforeEach(() => vi.resetAllMocks());

function show() {
  const session = new SessionController('/p');
  render(TranscriptPanel, { props: { session } });
  return session;
}

describe('the instructions indicator', () => {
  it('shows the file in effect, and its text and notices on click', async () => {
    api.projectInstructions.mockResolvedValue(agents);
    show();
    const indicator = screen.getByTestId('instructions-indicator');
    await vi.waitFor(() => expect(indicator).toHaveTextContent('AGENTS.md · 1.2k tokens'));
    expect(api.projectInstructions).toHaveBeenCalledWith('/p');
    expect(indicator).toHaveClass('warn');
    expect(screen.queryByTestId('instructions-panel')).toBeNull();
    await fireEvent.click(indicator);
    const panel = screen.getByTestId('instructions-panel');
    expect(within(panel).getByTestId('instructions-text').textContent).toBe(agents.text);
    expect(within(panel).getByTestId('instructions-text').tagName).toBe('PRE');
    expect(within(panel).getByTestId('instructions-file')).toHaveTextContent('AGENTS.md 39.1 KB · 1.2k tokens · only its beginning is given');
    expect(within(panel).getAllByTestId('instructions-notice').map((n) => n.textContent)).toEqual(agents.notices);
    await fireEvent.click(within(panel).getByTestId('instructions-close'));
    expect(screen.queryByTestId('instructions-panel')).toBeNull();
  });

  it('says when there is no AGENTS.md, notices included', async () => {
    api.projectInstructions.mockResolvedValue({ ...none, notices: ['AGENTS.md is not UTF-8 text; it was not given to the agent'] });
    show();
    const indicator = screen.getByTestId('instructions-indicator');
    await vi.waitFor(() => expect(indicator).toHaveTextContent('No AGENTS.md'));
    await fireEvent.click(indicator);
    const panel = screen.getByTestId('instructions-panel');
    expect(panel).toHaveTextContent('No AGENTS.md (or CLAUDE.md) at the project root');
    expect(within(panel).getByTestId('instructions-notice')).toHaveTextContent('not UTF-8');
    expect(within(panel).queryByTestId('instructions-text')).toBeNull();
  });

  it('is read again after each run', async () => {
    api.projectInstructions.mockResolvedValueOnce(none).mockResolvedValue(agents);
    let emit: (e: AgentEvent) => void = () => {};
    api.sendPrompt.mockImplementation(async (_p, _s, _t, onEvent) => {
      emit = onEvent;
      return 's1';
    });
    const session = show();
    await vi.waitFor(() => expect(screen.getByTestId('instructions-indicator')).toHaveTextContent('No AGENTS.md'));
    session.draft = 'write AGENTS.md';
    await session.send();
    emit({ type: 'run_started', agent: 'main', model: 'm', max_turns: 10 });
    expect(api.projectInstructions).toHaveBeenCalledTimes(1);
    emit({ type: 'run_finished', exit: 'end_turn', turns: 1, usage: usage(1, 1) });
    await vi.waitFor(() => expect(screen.getByTestId('instructions-indicator')).toHaveTextContent('AGENTS.md · 1.2k tokens'));
    expect(api.projectInstructions).toHaveBeenCalledTimes(2);
  });

  it('says when they could not be read', async () => {
    api.projectInstructions.mockRejectedValue({ code: 'not_found', message: 'no such project' });
    show();
    const indicator = screen.getByTestId('instructions-indicator');
    await vi.waitFor(() => expect(indicator).toHaveTextContent('Instructions unknown'));
    expect(indicator).toHaveAttribute('title', 'no such project');
    expect(indicator).toBeDisabled();
  });
});
