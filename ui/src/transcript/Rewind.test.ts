import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent, RewindPreview } from '../lib/bindings';
import { OPEN_TURNS, SessionController } from '../lib/session.svelte';
import { edit, editRun, editSession, rewound, stored, summaryOf } from '../test/changes';
import { kept } from '../test/events';
import { toolMessages, toolRun } from '../test/sessions';
import TranscriptPanel from './TranscriptPanel.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

const { actions, messages } = editSession('one', 'two');
const events = kept(actions.filter((a): a is AgentEvent => a.type !== 'user_prompt'));
const rewind = rewound({ id: 'rw1', prompt: 2, turn: 0, changed: [summaryOf(edit)] });
const undo = rewound({ id: 'rw2', prompt: 2, turn: 0, undoes: 'rw1', changed: [summaryOf(edit)] });
const before = stored(messages, events);
const after = stored(messages, [...events, rewind]);
const undone = stored(messages, [...events, rewind, undo]);
const preview: RewindPreview = { files: [edit], messages_dropped: 4 };

beforeEach(() => {
  vi.resetAllMocks();
  api.rewindPreview.mockResolvedValue(preview);
});

async function open(session = before) {
  api.loadSession.mockResolvedValue(session);
  const s = new SessionController('/p');
  render(TranscriptPanel, { props: { session: s } });
  await s.open('s1');
  expect(api.loadSession).toHaveBeenCalledWith('/p', 's1', OPEN_TURNS);
  return s;
}

const button = (prompt: number, turn: number) =>
  screen
    .queryAllByTestId('rewind-button')
    .find((b) => b.dataset.prompt === String(prompt) && b.dataset.turn === String(turn));

describe('rewinding a session', () => {
  it('previews, re-asks on a mode switch, rewinds and shows the session as it now reads', async () => {
    await open();
    await fireEvent.click(button(2, 0)!);
    const dialog = await screen.findByTestId('rewind-dialog');
    expect(api.rewindPreview).toHaveBeenLastCalledWith('/p', 's1', 2, 0, 'both');
    expect(await within(dialog).findByTestId('rewind-files')).toHaveTextContent('1 file will change:');
    // Said before it happens: the user's own files since then go back too.
    expect(within(dialog).getByTestId('rewind-whole-workspace')).toHaveTextContent('files you added or edited yourself');
    expect(within(dialog).getByTestId('diff-view')).toHaveAttribute('data-path', 'src/app.ts');
    expect(within(dialog).queryByTestId('diff-line')).toBeNull();
    expect(within(dialog).getByTestId('rewind-messages')).toHaveTextContent(
      '4 messages will be set aside (kept in the session, shown as rewound).',
    );

    api.rewindPreview.mockResolvedValue({ files: [edit], messages_dropped: 0 });
    await fireEvent.click(within(dialog).getByTestId('rewind-mode-files_only'));
    expect(api.rewindPreview).toHaveBeenLastCalledWith('/p', 's1', 2, 0, 'files_only');
    await vi.waitFor(() => expect(dialog).toHaveTextContent('The conversation stays as it is.'));
    expect(within(dialog).queryByTestId('rewind-messages')).toBeNull();
    await fireEvent.click(within(dialog).getByTestId('rewind-mode-both'));
    expect(api.rewindPreview).toHaveBeenCalledTimes(3);

    api.rewindSession.mockResolvedValue(after);
    await vi.waitFor(() => expect(within(dialog).getByTestId('rewind-confirm')).toBeEnabled());
    await fireEvent.click(within(dialog).getByTestId('rewind-confirm'));
    expect(api.rewindSession).toHaveBeenCalledWith('/p', 's1', 2, 0, 'both');
    await vi.waitFor(() => expect(screen.queryByTestId('rewind-dialog')).toBeNull());

    // The returned session replaced the shown one: prompt 2 is set aside, and back in the composer.
    expect(screen.getAllByTestId('rewound-marker')).toHaveLength(1);
    expect(screen.getAllByTestId('message-user')[1]!.closest('.run')).toHaveClass('rewound');
    expect(screen.getByTestId('rewind-marker')).toHaveTextContent(
      'Rewound files and conversation to before prompt 2 — 1 file changed',
    );
    expect(screen.getByTestId('prompt-input')).toHaveValue('two');
    expect(button(2, 0)).toBeUndefined();
    expect(button(1, 0)).toBeDefined();
  });

  it('undo calls undo_rewind and shows the session again', async () => {
    await open(after);
    api.undoRewind.mockResolvedValue(undone);
    const marker = screen.getByTestId('rewind-marker');
    await fireEvent.click(within(marker).getByTestId('undo-rewind'));
    expect(api.undoRewind).toHaveBeenCalledWith('/p', 's1');
    await vi.waitFor(() => expect(screen.getAllByTestId('rewind-marker')).toHaveLength(2));
    const [first, last] = screen.getAllByTestId('rewind-marker');
    expect(last).toHaveTextContent('Undid the rewind');
    // Only the last one can be undone.
    expect(within(first!).queryByTestId('undo-rewind')).toBeNull();
    expect(within(last!).getByTestId('undo-rewind')).toBeInTheDocument();
    expect(screen.queryByTestId('rewound-marker')).toBeNull();
    expect(button(2, 0)).toBeDefined();
  });

  it('offers no undo once a prompt ran after the rewind', async () => {
    const next = editRun(3, 'two, edited', 8);
    const nextEvents = kept(next.actions.filter((a): a is AgentEvent => a.type !== 'user_prompt'));
    await open(stored([...messages, ...next.messages], [...events, rewind, ...nextEvents]));
    expect(screen.getByTestId('rewind-marker')).toBeInTheDocument();
    expect(screen.queryByTestId('undo-rewind')).toBeNull();
    expect(screen.getAllByTestId('message-user').map((m) => m.closest('.run')!.classList.contains('rewound'))).toEqual([
      false,
      true,
      false,
    ]);
  });

  it('shows a failed undo next to the composer', async () => {
    await open(after);
    api.undoRewind.mockRejectedValue({ code: 'session', message: 'nothing to undo' });
    await fireEvent.click(screen.getByTestId('undo-rewind'));
    expect(await screen.findByTestId('command-error')).toHaveTextContent('nothing to undo');
    expect(screen.getAllByTestId('rewound-marker')).toHaveLength(1);
  });

  it('rewinds only the conversation where the files were not recorded', async () => {
    await open(stored(toolMessages, kept(toolRun.filter((a): a is AgentEvent => a.type !== 'user_prompt'))));
    expect(screen.getAllByTestId('rewind-button').map((b) => b.dataset.turn)).toEqual(['0']);
    await fireEvent.click(button(1, 0)!);
    const dialog = await screen.findByTestId('rewind-dialog');
    expect(within(dialog).getByTestId('rewind-mode-both')).toBeDisabled();
    expect(within(dialog).getByTestId('rewind-mode-files_only')).toBeDisabled();
    expect(within(dialog).getByTestId('rewind-mode-conversation_only')).toBeChecked();
    expect(api.rewindPreview).toHaveBeenCalledWith('/p', 's1', 1, 0, 'conversation_only');
  });

  it('rewinds to before a step, leaving the composer alone', async () => {
    const s = await open();
    s.draft = 'draft';
    await fireEvent.click(button(1, 1)!);
    const dialog = await screen.findByTestId('rewind-dialog');
    expect(dialog).toHaveTextContent('Rewind to before step 1 of prompt 1');
    api.rewindSession.mockResolvedValue(stored(messages, [...events, rewound({ prompt: 1, turn: 1 })]));
    await vi.waitFor(() => expect(within(dialog).getByTestId('rewind-confirm')).toBeEnabled());
    await fireEvent.click(within(dialog).getByTestId('rewind-confirm'));
    expect(api.rewindSession).toHaveBeenCalledWith('/p', 's1', 1, 1, 'both');
    await vi.waitFor(() => expect(screen.queryByTestId('rewind-dialog')).toBeNull());
    expect(screen.getByTestId('prompt-input')).toHaveValue('draft');
  });

  it('keeps the dialog open with the error when the rewind fails; Cancel closes it', async () => {
    await open();
    api.rewindSession.mockRejectedValue({ code: 'io', message: 'the workspace could not be written' });
    await fireEvent.click(button(2, 0)!);
    const dialog = await screen.findByTestId('rewind-dialog');
    await vi.waitFor(() => expect(within(dialog).getByTestId('rewind-confirm')).toBeEnabled());
    await fireEvent.click(within(dialog).getByTestId('rewind-confirm'));
    expect(await within(dialog).findByTestId('rewind-error')).toHaveTextContent('the workspace could not be written');
    expect(screen.queryByTestId('rewound-marker')).toBeNull();
    await fireEvent.click(within(dialog).getByTestId('rewind-cancel'));
    expect(screen.queryByTestId('rewind-dialog')).toBeNull();
  });

  it('shows a failed preview, and drops an answer that came too late', async () => {
    let late: (p: RewindPreview) => void = () => {};
    api.rewindPreview.mockReturnValueOnce(new Promise((resolve) => (late = resolve)));
    api.rewindPreview.mockRejectedValueOnce({ code: 'not_found', message: 'checkpoint missing' });
    await open();
    await fireEvent.click(button(2, 0)!);
    const dialog = await screen.findByTestId('rewind-dialog');
    await fireEvent.click(within(dialog).getByTestId('rewind-mode-conversation_only'));
    expect(await within(dialog).findByTestId('rewind-error')).toHaveTextContent('checkpoint missing');
    late(preview);
    await new Promise((r) => setTimeout(r, 0));
    expect(within(dialog).queryByTestId('rewind-messages')).toBeNull();
    expect(within(dialog).getByTestId('rewind-error')).toBeInTheDocument();
  });

  it('offers no rewind while a run is live', async () => {
    await open();
    expect(screen.getAllByTestId('rewind-button').length).toBeGreaterThan(0);
    api.sendPrompt.mockReturnValue(new Promise(() => {}));
    await fireEvent.input(screen.getByTestId('prompt-input'), { target: { value: 'three' } });
    await fireEvent.click(screen.getByTestId('send-button'));
    await vi.waitFor(() => expect(screen.queryByTestId('rewind-button')).toBeNull());
  });
});
