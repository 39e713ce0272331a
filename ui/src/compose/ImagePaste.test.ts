import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SessionController } from '../lib/session.svelte';
import TranscriptPanel from '../transcript/TranscriptPanel.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('an image pasted into the prompt box', () => {
  beforeEach(() => {
    vi.resetAllMocks();
    api.savedPrompts.mockResolvedValue([]);
    api.sendPrompt.mockResolvedValue('s1');
  });
  afterEach(cleanup);

  it('shows as a thumbnail and goes with the prompt as an image attachment', async () => {
    render(TranscriptPanel, { props: { session: new SessionController('/p') } });
    const input = screen.getByTestId('prompt-input');
    const file = new File([PNG], 'shot.png', { type: 'image/png' });
    const clipboardData = { items: [{ kind: 'file', getAsFile: () => file }], files: [file] };
    await fireEvent.paste(input, { clipboardData });
    await vi.waitFor(() => expect(screen.getAllByTestId('image-thumb')).toHaveLength(1));
    await fireEvent.input(input, { target: { value: 'What is on this screen?' } });
    await fireEvent.keyDown(input, { key: 'Enter', ctrlKey: true });
    await vi.waitFor(() =>
      expect(api.sendPrompt).toHaveBeenCalledWith('/p', null, 'What is on this screen?', expect.any(Function), null, [
        { kind: 'image', media_type: 'image/png', name: 'shot.png', data: btoa(String.fromCharCode(...PNG)) },
      ]),
    );
    expect(screen.queryAllByTestId('image-thumb')).toHaveLength(0);
  });
});
