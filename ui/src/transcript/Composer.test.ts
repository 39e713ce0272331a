import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import Composer from './Composer.svelte';

const props = (over: Record<string, unknown> = {}) => ({
  value: '',
  running: false,
  onsend: vi.fn(),
  onstop: vi.fn(),
  onunqueue: vi.fn(),
  lastPrompt: () => 'the last prompt',
  ...over,
});

describe('Composer keys', () => {
  beforeEach(() => localStorage.clear());

  it('sends with Ctrl+Enter, and with Enter once chosen (Shift+Enter stays a new line)', async () => {
    const p = props({ value: 'hello' });
    render(Composer, { props: p });
    const input = screen.getByTestId('prompt-input');
    await fireEvent.keyDown(input, { key: 'Enter' });
    expect(p.onsend).not.toHaveBeenCalled();
    await fireEvent.keyDown(input, { key: 'Enter', ctrlKey: true });
    expect(p.onsend).toHaveBeenCalledTimes(1);
    await fireEvent.click(screen.getByTestId('enter-sends'));
    expect(localStorage.getItem('paddock.enterSends')).toBe('1');
    await fireEvent.keyDown(input, { key: 'Enter', shiftKey: true });
    expect(p.onsend).toHaveBeenCalledTimes(1);
    await fireEvent.keyDown(input, { key: 'Enter' });
    expect(p.onsend).toHaveBeenCalledTimes(2);
  });

  it('stops a run with Esc', async () => {
    const p = props({ running: true });
    render(Composer, { props: p });
    await fireEvent.keyDown(screen.getByTestId('prompt-input'), { key: 'Escape' });
    expect(p.onstop).toHaveBeenCalled();
  });

  it('recalls the last prompt with ↑ in an empty composer', async () => {
    render(Composer, { props: props() });
    const input = screen.getByTestId('prompt-input') as HTMLTextAreaElement;
    await fireEvent.keyDown(input, { key: 'ArrowUp' });
    expect(input.value).toBe('the last prompt');
  });

  it('queues one prompt while a run goes on, shown with a way back', async () => {
    const p = props({ running: true, value: 'next step' });
    const { rerender } = render(Composer, { props: p });
    expect(screen.getByTestId('send-button')).toHaveTextContent('Queue');
    expect(screen.getByTestId('send-button')).toBeEnabled();
    await fireEvent.click(screen.getByTestId('send-button'));
    expect(p.onsend).toHaveBeenCalled();
    await rerender({ ...p, value: 'another', queued: 'next step' });
    expect(screen.getByTestId('queued-prompt')).toHaveTextContent('Sends when this run ends: next step');
    expect(screen.getByTestId('send-button')).toBeDisabled();
    await fireEvent.click(screen.getByTestId('queued-cancel'));
    expect(p.onunqueue).toHaveBeenCalled();
  });
});
