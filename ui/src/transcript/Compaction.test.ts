import { cleanup, fireEvent, render, screen, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent, SessionTranscript } from '../lib/bindings';
import { SessionController } from '../lib/session.svelte';
import type { TranscriptAction } from '../lib/transcript';
import { stored } from '../test/changes';
import { chatRun, chatSession, compacted, context } from '../test/compaction';
import { kept } from '../test/events';
import ContextMeter from './ContextMeter.svelte';
import TranscriptPanel from './TranscriptPanel.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

const events = (actions: TranscriptAction[]) => kept(actions.filter((a): a is AgentEvent => a.type !== 'user_prompt'));
const { actions, messages } = chatSession(chatRun(1, 'one', 3), chatRun(2, 'two', 3));
const plain = stored(messages, events(actions));
const asked = compacted({ id: 'cp1', kept_turns: 2, summary: 'They listed files.' });
const compactedSession = stored(messages, [...events(actions), asked]);
const edited = stored(messages, [...events(actions), asked, { type: 'compaction_edited', id: 'cp1', summary: 'Better words.' }]);
const undone = stored(messages, [...events(actions), asked, { type: 'compaction_undone', id: 'cp1' }]);

beforeEach(() => {
  vi.resetAllMocks();
  api.projectInstructions.mockResolvedValue({ files: [], text: '', notices: [] });
});

async function open(session: SessionTranscript) {
  api.loadSession.mockResolvedValue(session);
  const s = new SessionController('/p');
  render(TranscriptPanel, { props: { session: s } });
  await s.open('s1');
  return s;
}

describe('the context meter', () => {
  it('shows used / window and what uses it', async () => {
    render(ContextMeter, { props: { context: context(12_300) } });
    const meter = screen.getByTestId('context-meter');
    expect(meter).toHaveAttribute('data-used', '12300');
    expect(meter).toHaveAttribute('data-window', '200000');
    expect(meter).toHaveTextContent('12.3k / 200k tokens');
    expect(meter).not.toHaveClass('over');
    expect(meter.querySelector('meter')).toHaveAttribute('value', '12300');
    const parts = screen.getByTestId('context-parts');
    const rows = [...parts.querySelectorAll('div')].map((d) => [d.querySelector('dt')?.textContent, d.querySelector('dd')?.textContent]);
    expect(rows).toEqual([
      ['Instructions', '1k'],
      ['Tools', '2k'],
      ['Conversation', '9.3k'],
      ['Used', '6 %'],
    ]);
    const button = within(meter).getByRole('button');
    await fireEvent.click(button);
    expect(button).toHaveAttribute('aria-expanded', 'true');
    expect(meter).toHaveClass('open');
  });

  it('says when the window is unknown', () => {
    render(ContextMeter, { props: { context: context(12_300, null) } });
    const meter = screen.getByTestId('context-meter');
    expect(meter).toHaveTextContent('12.3k tokens · window unknown');
    expect(meter).not.toHaveAttribute('data-window');
    expect(meter.querySelector('meter')).toBeNull();
    expect(meter).not.toHaveClass('over');
  });

  it('changes colour past 80 %', async () => {
    const { rerender } = render(ContextMeter, { props: { context: context(160_000) } });
    expect(screen.getByTestId('context-meter')).not.toHaveClass('over');
    await rerender({ context: context(160_001) });
    expect(screen.getByTestId('context-meter')).toHaveClass('over');
  });

  it('follows the open session in the panel header', async () => {
    await open(plain);
    expect(screen.getByTestId('context-meter')).toHaveAttribute('data-used', '23000');
  });
});

describe('compaction dividers', () => {
  it('say what was summarized, show the summary on click, and collapse the summarized turns', async () => {
    await open(compactedSession);
    const divider = screen.getByTestId('compaction-divider');
    expect(divider).toHaveAttribute('data-reason', 'asked');
    expect(divider).toHaveTextContent('Conversation compacted — 45 messages summarized (12.3k → 3.1k tokens)');
    expect(within(divider).queryByTestId('compaction-summary')).toBeNull();
    await fireEvent.click(within(divider).getByTestId('compaction-toggle'));
    expect(within(divider).getByTestId('compaction-summary')).toHaveTextContent('They listed files.');
    // 6 turns, 2 kept: run 1's three and run 2's first in two groups (one per run).
    const groups = screen.getAllByTestId('summarized-marker');
    expect(groups.map((g) => g.dataset.turns)).toEqual(['3', '1']);
    expect(screen.getAllByTestId('message-assistant').map((m) => m.textContent?.trim())).toEqual(['Run 2, turn 2.', 'Run 2, turn 3.']);
    expect(groups[0]).toHaveTextContent('3 turns summarized — show');
    await fireEvent.click(within(groups[0]!).getByTestId('summarized-toggle'));
    expect(within(groups[0]!).getAllByTestId('message-assistant')).toHaveLength(3);
    expect(groups[0]).toHaveTextContent('3 turns summarized — hide');
    // The meter shows the shorter conversation.
    expect(screen.getByTestId('context-meter')).toHaveAttribute('data-used', String(1_000 + 2_000 + 3_100));
  });

  it('edit the summary with edit_compaction and show the session it returns', async () => {
    await open(compactedSession);
    api.editCompaction.mockResolvedValue(edited);
    await fireEvent.click(screen.getByTestId('compaction-edit'));
    const input = screen.getByTestId('compaction-edit-input');
    expect(input).toHaveValue('They listed files.');
    await fireEvent.input(input, { target: { value: 'Better words.' } });
    await fireEvent.click(screen.getByTestId('compaction-edit-save'));
    expect(api.editCompaction).toHaveBeenCalledWith('/p', 's1', 'cp1', 'Better words.');
    await vi.waitFor(() => expect(screen.queryByTestId('compaction-edit-input')).toBeNull());
    await fireEvent.click(screen.getByTestId('compaction-toggle'));
    expect(screen.getByTestId('compaction-summary')).toHaveTextContent('Better words.');
  });

  it('cancel leaves the summary alone; a refused edit shows why', async () => {
    await open(compactedSession);
    await fireEvent.click(screen.getByTestId('compaction-edit'));
    await fireEvent.input(screen.getByTestId('compaction-edit-input'), { target: { value: 'x' } });
    await fireEvent.click(screen.getByTestId('compaction-edit-cancel'));
    expect(screen.queryByTestId('compaction-edit-input')).toBeNull();
    expect(api.editCompaction).not.toHaveBeenCalled();

    api.editCompaction.mockRejectedValue({ code: 'invalid', message: 'only the latest compaction’s summary can be edited' });
    await fireEvent.click(screen.getByTestId('compaction-edit'));
    await fireEvent.click(screen.getByTestId('compaction-edit-save'));
    expect(await screen.findByTestId('compaction-error')).toHaveTextContent('only the latest');
    expect(screen.getByTestId('compaction-edit-input')).toHaveValue('They listed files.');
  });

  it('undo calls undo_compaction: the turns come back, the divider says so', async () => {
    await open(compactedSession);
    api.undoCompaction.mockResolvedValue(undone);
    await fireEvent.click(screen.getByTestId('compaction-undo'));
    expect(api.undoCompaction).toHaveBeenCalledWith('/p', 's1');
    await vi.waitFor(() => expect(screen.queryByTestId('summarized-marker')).toBeNull());
    const divider = screen.getByTestId('compaction-divider');
    expect(divider).toHaveAttribute('data-undone', 'true');
    expect(divider).toHaveTextContent('Compaction undone — 45 messages back in the conversation');
    expect(within(divider).queryByTestId('compaction-undo')).toBeNull();
    expect(screen.getAllByTestId('message-assistant')).toHaveLength(6);
  });

  it('a failed undo shows why at the divider', async () => {
    await open(compactedSession);
    api.undoCompaction.mockRejectedValue({ code: 'busy', message: 'a prompt is running in this session' });
    await fireEvent.click(screen.getByTestId('compaction-undo'));
    expect(await screen.findByTestId('compaction-error')).toHaveTextContent('a prompt is running');
    expect(screen.getAllByTestId('summarized-marker')).toHaveLength(2);
  });

  it('only the latest compaction in effect can be edited or undone', async () => {
    const second = compacted({ id: 'cp2', kept_turns: 1 });
    await open(stored(messages, [...events(actions), asked, second]));
    const [first, last] = screen.getAllByTestId('compaction-divider');
    expect(within(first!).queryByTestId('compaction-edit')).toBeNull();
    expect(within(first!).queryByTestId('compaction-undo')).toBeNull();
    expect(within(last!).getByTestId('compaction-undo')).toBeInTheDocument();
    // Once the later one is undone, the earlier one is the latest again.
    cleanup();
    await open(stored(messages, [...events(actions), asked, second, { type: 'compaction_undone', id: 'cp2' }]));
    const again = screen.getAllByTestId('compaction-divider');
    expect(within(again[0]!).getByTestId('compaction-undo')).toBeInTheDocument();
    expect(within(again[1]!).queryByTestId('compaction-undo')).toBeNull();
  });

  it('a compaction in a run shows where it happened, before the turn it came in', async () => {
    const run = chatRun(1, 'one', 3, { compactBefore: { turn: 3, info: { id: 'auto', kept_turns: 1 } } });
    await open(stored(run.messages, events(run.actions)));
    const divider = screen.getByTestId('compaction-divider');
    expect(divider).toHaveAttribute('data-reason', 'threshold');
    const turns = [...document.querySelectorAll('section.turn, [data-testid="compaction-divider"], [data-testid="summarized-marker"]')];
    expect(turns.map((e) => e.getAttribute('data-testid') ?? e.getAttribute('aria-label'))).toEqual([
      'summarized-marker',
      'Turn 2',
      'compaction-divider',
      'Turn 3',
    ]);
  });
});

describe('Compact now', () => {
  it('compacts the open session, says so meanwhile, and shows what it returns', async () => {
    const s = await open(plain);
    let answer: (t: SessionTranscript) => void = () => {};
    api.compactSession.mockReturnValue(new Promise((resolve) => (answer = resolve)));
    const button = screen.getByTestId('compact-button');
    expect(button).toHaveTextContent('Compact now');
    await fireEvent.click(button);
    expect(api.compactSession).toHaveBeenCalledWith('/p', 's1');
    expect(button).toHaveTextContent('Compacting…');
    expect(button).toBeDisabled();
    expect(s.compacting).toBe(true);
    // Nothing is sent meanwhile.
    await fireEvent.input(screen.getByTestId('prompt-input'), { target: { value: 'more' } });
    expect(screen.getByTestId('send-button')).toBeDisabled();
    answer(compactedSession);
    await vi.waitFor(() => expect(screen.getByTestId('compaction-divider')).toBeInTheDocument());
    expect(button).toHaveTextContent('Compact now');
    expect(button).toBeEnabled();
    expect(screen.getByTestId('send-button')).toBeEnabled();
    expect(screen.getByTestId('context-meter')).toHaveAttribute('data-used', '6100');
  });

  it('shows why it could not', async () => {
    await open(plain);
    api.compactSession.mockRejectedValue({ code: 'invalid', message: 'the conversation is too short to compact' });
    await fireEvent.click(screen.getByTestId('compact-button'));
    expect(await screen.findByTestId('compact-error')).toHaveTextContent('the conversation is too short to compact');
    expect(screen.getByTestId('compact-button')).toBeEnabled();
    expect(screen.queryByTestId('compaction-divider')).toBeNull();
  });

  it('is off without a session and while a run is live', async () => {
    const s = new SessionController('/p');
    render(TranscriptPanel, { props: { session: s } });
    expect(screen.getByTestId('compact-button')).toBeDisabled();
    api.loadSession.mockResolvedValue(compactedSession);
    await s.open('s1');
    await vi.waitFor(() => expect(screen.getByTestId('compact-button')).toBeEnabled());
    expect(screen.getByTestId('compaction-undo')).toBeInTheDocument();
    api.sendPrompt.mockReturnValue(new Promise(() => {}));
    await fireEvent.input(screen.getByTestId('prompt-input'), { target: { value: 'three' } });
    await fireEvent.click(screen.getByTestId('send-button'));
    await vi.waitFor(() => expect(screen.getByTestId('compact-button')).toBeDisabled());
    // And the compaction controls of the transcript are off too.
    expect(screen.queryByTestId('compaction-undo')).toBeNull();
  });
});
