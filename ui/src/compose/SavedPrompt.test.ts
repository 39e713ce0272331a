import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ExpandedPrompt, SavedPrompt } from '../lib/bindings';
import { SessionController } from '../lib/session.svelte';
import TranscriptPanel from '../transcript/TranscriptPanel.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

const saved: SavedPrompt[] = [
  { name: 'review', source: 'project', path: '/p/.paddock/prompts/review.md', description: 'Review', argument_hint: '[file]', status: 'unconfirmed' },
  { name: 'fix', source: 'user', path: '/c/prompts/fix.md', description: 'Fix', status: 'ready' },
];
const shown: ExpandedPrompt = {
  name: 'review',
  source: 'project',
  path: '/p/.paddock/prompts/review.md',
  text: '',
  file_text: '---\ndescription: Review\n---\nReview $ARGUMENTS.\n',
  digest: 'abc',
  needs_confirmation: true,
};

beforeEach(() => {
  vi.resetAllMocks();
  api.savedPrompts.mockResolvedValue(saved);
  api.sendPrompt.mockResolvedValue('s1');
});

async function type(text: string) {
  const s = new SessionController('/p');
  render(TranscriptPanel, { props: { session: s } });
  const input = screen.getByTestId('prompt-input');
  await fireEvent.input(input, { target: { value: '/' } });
  await vi.waitFor(() => expect(screen.getAllByTestId('slash-item').some((i) => i.dataset.name === 'review')).toBe(true));
  await fireEvent.input(input, { target: { value: text } });
  await fireEvent.keyDown(input, { key: 'Enter', ctrlKey: true });
  return s;
}

describe('saved prompts', () => {
  it("sends the user's own prompt filled in by the host", async () => {
    api.expandPrompt.mockResolvedValue({ ...shown, name: 'fix', source: 'user', text: 'Fix a.rs', needs_confirmation: false });
    const s = await type('/fix a.rs');
    expect(api.expandPrompt).toHaveBeenCalledWith('/p', 'fix', 'a.rs');
    await vi.waitFor(() => expect(api.sendPrompt).toHaveBeenCalledWith('/p', null, 'Fix a.rs', expect.any(Function)));
    expect(s.draft).toBe('');
    expect(screen.queryByTestId('prompt-confirm')).toBeNull();
  });

  it("shows a project's prompt in full before its first send, and sends only once confirmed", async () => {
    api.expandPrompt.mockResolvedValue(shown);
    api.confirmPrompt.mockResolvedValue({ ...shown, text: 'Review main.rs.\n', needs_confirmation: false });
    await type('/review main.rs');
    const dialog = await screen.findByTestId('prompt-confirm');
    expect(dialog).toBeInTheDocument();
    expect(screen.getByTestId('prompt-confirm-text').textContent).toBe(shown.file_text);
    expect(screen.getByTestId('prompt-confirm-path')).toHaveTextContent('/p/.paddock/prompts/review.md');
    expect(api.sendPrompt).not.toHaveBeenCalled();

    await fireEvent.click(screen.getByTestId('prompt-confirm-send'));
    expect(api.confirmPrompt).toHaveBeenCalledWith('/p', 'review', 'main.rs', 'abc');
    await vi.waitFor(() =>
      expect(api.sendPrompt).toHaveBeenCalledWith('/p', null, 'Review main.rs.', expect.any(Function)),
    );
    expect(screen.queryByTestId('prompt-confirm')).toBeNull();
  });

  it('sends nothing when the confirmation is cancelled', async () => {
    api.expandPrompt.mockResolvedValue(shown);
    const s = await type('/review main.rs');
    await fireEvent.click(await screen.findByTestId('prompt-confirm-cancel'));
    expect(screen.queryByTestId('prompt-confirm')).toBeNull();
    expect(api.confirmPrompt).not.toHaveBeenCalled();
    expect(api.sendPrompt).not.toHaveBeenCalled();
    expect(s.draft).toBe('/review main.rs');
  });

  it('/cost and /help show what they are about', async () => {
    await type('/cost');
    expect(await screen.findByTestId('slash-cost')).toHaveTextContent('0 in · 0 out over 0 prompts');
    await fireEvent.click(screen.getByTestId('slash-panel-close'));
  });
});
