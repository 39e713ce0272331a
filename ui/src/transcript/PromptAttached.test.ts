import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Message } from '../lib/bindings';
import { attachedAction } from '../lib/attached';
import { fromStored } from '../lib/stored';
import { emptyTranscript, reduce, type Run } from '../lib/transcript';
import RunView from './RunView.svelte';
import { SESSION_LINK_KEY, type SessionLink } from './context';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

const SHA = 'ab'.repeat(32);
const link: SessionLink = {
  project: '/p',
  sessionId: 's1',
  running: false,
  rewind: vi.fn(),
  undo: vi.fn(),
  undoCompaction: vi.fn(),
  editCompaction: vi.fn(),
  continueRun: vi.fn(),
};

const show = (run: Run) => render(RunView, { props: { run, index: 0 }, context: new Map([[SESSION_LINK_KEY, () => link]]) });

beforeEach(() => vi.resetAllMocks());

describe('what a prompt took along', () => {
  it('shows a stored prompt’s mentions with the text that was sent, and fetches its image', async () => {
    api.sessionImage.mockResolvedValue('data:image/png;base64,AAAA');
    const messages: Message[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look at @src/a.rs' },
          { type: 'mention', path: 'src/a.rs', folder: false, text: 'fn a() {}\n', cut: 'the rest (200 KB) was left out' },
          { type: 'image', media_type: 'image/png', sha256: SHA, name: 'shot.png', width: 4, height: 3 },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Seen.' }] },
    ];
    const run = fromStored(messages, []).runs[0]!;
    expect(run.prompt).toBe('look at @src/a.rs');
    show(run);
    const image = await screen.findByRole('img', { name: 'shot.png' });
    expect(image).toHaveAttribute('src', 'data:image/png;base64,AAAA');
    expect(api.sessionImage).toHaveBeenCalledWith('/p', 's1', 'image/png', SHA);
    await fireEvent.click(screen.getByTestId('prompt-mention'));
    const preview = screen.getByTestId('prompt-attached-preview');
    expect(preview).toHaveTextContent('fn a() {}');
    expect(preview).toHaveTextContent('the rest (200 KB) was left out');
    expect(api.readWorkspaceFile).not.toHaveBeenCalled();
  });

  it('names an image the session no longer keeps', async () => {
    api.sessionImage.mockRejectedValue({ code: 'session', message: 'gone' });
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'this' }, { type: 'image', media_type: 'image/png', sha256: SHA, name: 'old.png', width: 1, height: 1 }] },
    ];
    show(fromStored(messages, []).runs[0]!);
    await waitFor(() => expect(api.sessionImage).toHaveBeenCalled());
    const thumb = await screen.findByRole('button', { name: 'Image old.png' });
    expect(thumb).toHaveTextContent('old.png');
    await fireEvent.click(thumb);
    expect(screen.getByTestId('prompt-attached-preview')).toHaveTextContent('old.png is no longer kept with this session.');
  });

  it('shows a live prompt’s attachments from what is sent, without asking the shell', async () => {
    api.readWorkspaceFile.mockResolvedValue({ path: 'notes.md', size: 5, binary: false, truncated: false, text: 'hello' });
    const action = { type: 'user_prompt' as const, text: 'see', ...attachedAction([{ kind: 'mention', path: 'notes.md' }, { kind: 'image', media_type: 'image/png', data: 'QUJD', name: 'p.png' }]) };
    const run = reduce(emptyTranscript(), action).runs[0]!;
    show(run);
    expect(screen.getByRole('img', { name: 'p.png' })).toHaveAttribute('src', 'data:image/png;base64,QUJD');
    await fireEvent.click(screen.getByTestId('prompt-mention'));
    await waitFor(() => expect(screen.getByTestId('prompt-attached-preview')).toHaveTextContent('hello'));
    expect(api.readWorkspaceFile).toHaveBeenCalledWith('/p', 'notes.md');
    expect(api.sessionImage).not.toHaveBeenCalled();
  });

  it('keeps a prompt without attachments as it was', () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'plain' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    ];
    expect(fromStored(messages, []).runs[0]).not.toHaveProperty('attached');
    expect(reduce(emptyTranscript(), { type: 'user_prompt', text: 'x', ...attachedAction([]) }).runs[0]).not.toHaveProperty('attached');
  });
});
