import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SessionController } from '../lib/session.svelte';
import TranscriptPanel from '../transcript/TranscriptPanel.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

describe('mentioning a file with the keyboard', () => {
  beforeEach(() => {
    vi.resetAllMocks();
    api.savedPrompts.mockResolvedValue([]);
    api.sendPrompt.mockResolvedValue('s1');
    api.mentionCandidates.mockImplementation(async (_p, query) =>
      [
        { path: 'src', folder: true },
        { path: 'src/main.rs', folder: false },
        { path: 'src/lib.rs', folder: false },
      ].filter((c) => c.path.includes(query)),
    );
    api.readWorkspaceFile.mockResolvedValue({ path: 'src/main.rs', size: 12, binary: false, truncated: false, text: 'fn main() {}' });
  });
  afterEach(cleanup);

  it('lists matches as the name is typed, picks one with Enter, shows it as a chip and sends it', async () => {
    render(TranscriptPanel, { props: { session: new SessionController('/p') } });
    const input = screen.getByTestId('prompt-input') as HTMLTextAreaElement;
    await fireEvent.input(input, { target: { value: 'Explain @src/m' } });
    await vi.waitFor(() => expect(screen.getAllByTestId('mention-item').map((i) => i.dataset.path)).toEqual(['src/main.rs']));
    expect(api.mentionCandidates).toHaveBeenLastCalledWith('/p', 'src/m');
    expect(input).toHaveAttribute('aria-activedescendant', expect.stringContaining('-at-0'));
    await fireEvent.keyDown(input, { key: 'Enter' });
    expect(input.value).toBe('Explain @src/main.rs ');
    expect(screen.queryByTestId('mention-menu')).toBeNull();
    const chip = screen.getByTestId('mention-chip');
    expect(chip).toHaveAttribute('data-path', 'src/main.rs');

    // The chip opens to show what goes.
    await fireEvent.click(chip.querySelector('button')!);
    expect(await screen.findByTestId('mention-preview')).toHaveTextContent('fn main() {}');

    // A folder, with the arrow keys.
    await fireEvent.input(input, { target: { value: 'Explain @src/main.rs and @sr' } });
    await vi.waitFor(() => expect(screen.getAllByTestId('mention-item')).toHaveLength(3));
    await fireEvent.keyDown(input, { key: 'ArrowDown' });
    await fireEvent.keyDown(input, { key: 'ArrowUp' });
    await fireEvent.keyDown(input, { key: 'Tab' });
    expect(input.value).toBe('Explain @src/main.rs and @src/ ');

    await fireEvent.keyDown(input, { key: 'Enter', ctrlKey: true });
    await vi.waitFor(() =>
      expect(api.sendPrompt).toHaveBeenCalledWith('/p', null, 'Explain @src/main.rs and @src/', expect.any(Function), null, [
        { kind: 'mention', path: 'src/main.rs' },
        { kind: 'mention', path: 'src' },
      ]),
    );
    expect(screen.queryByTestId('mention-chip')).toBeNull();
  });

  it('Escape closes the list; a removed chip is not sent', async () => {
    render(TranscriptPanel, { props: { session: new SessionController('/p') } });
    const input = screen.getByTestId('prompt-input') as HTMLTextAreaElement;
    await fireEvent.input(input, { target: { value: '@lib' } });
    await vi.waitFor(() => expect(screen.getAllByTestId('mention-item')).toHaveLength(1));
    await fireEvent.keyDown(input, { key: 'Escape' });
    expect(screen.queryByTestId('mention-menu')).toBeNull();

    await fireEvent.input(input, { target: { value: '@li' } });
    await vi.waitFor(() => expect(screen.getAllByTestId('mention-item')).toHaveLength(1));
    await fireEvent.keyDown(input, { key: 'Enter' });
    await fireEvent.click(screen.getByTestId('mention-chip-remove'));
    expect(screen.queryByTestId('mention-chip')).toBeNull();
    await fireEvent.keyDown(input, { key: 'Enter', ctrlKey: true });
    await vi.waitFor(() => expect(api.sendPrompt).toHaveBeenCalledWith('/p', null, '@src/lib.rs', expect.any(Function)));
  });
});
