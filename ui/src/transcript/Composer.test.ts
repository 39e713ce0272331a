import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { SlashItem } from '../lib/slash';
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

describe('Composer slash menu', () => {
  const slash: SlashItem[] = [
    { name: 'compact', description: 'Summarize', source: 'builtin' },
    { name: 'rewind', description: 'Rewind', source: 'builtin' },
    { name: 'review', description: 'Review a file', hint: '[file]', source: 'project', unconfirmed: true },
  ];

  it('opens on /, filters as you type, and is driven by the keyboard', async () => {
    const p = { ...props({ slash }), onslash: vi.fn(), onslashopen: vi.fn() };
    render(Composer, { props: p });
    const input = screen.getByTestId('prompt-input') as HTMLTextAreaElement;
    expect(screen.queryByRole('listbox')).toBeNull();
    await fireEvent.input(input, { target: { value: '/re' } });
    expect(p.onslashopen).toHaveBeenCalled();
    const [first, second] = within(screen.getByRole('listbox')).getAllByRole('option');
    expect([first?.dataset.name, second?.dataset.name]).toEqual(['rewind', 'review']);
    expect(input.getAttribute('aria-activedescendant')).toBe(first?.id);
    expect(first).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByText('[file]')).toBeInTheDocument();

    await fireEvent.keyDown(input, { key: 'ArrowDown' });
    expect(input.getAttribute('aria-activedescendant')).toBe(second?.id);
    await fireEvent.keyDown(input, { key: 'ArrowDown' });
    expect(input.getAttribute('aria-activedescendant')).toBe(first?.id);
    await fireEvent.keyDown(input, { key: 'ArrowUp' });
    // A saved prompt is written out, for its arguments.
    await fireEvent.keyDown(input, { key: 'Enter' });
    expect(input.value).toBe('/review ');
    expect(screen.queryByRole('listbox')).toBeNull();
    expect(p.onslash).not.toHaveBeenCalled();
    expect(p.onsend).not.toHaveBeenCalled();

    // Sent with its arguments: the command, not the text.
    await fireEvent.input(input, { target: { value: '/review src/a.rs' } });
    await fireEvent.keyDown(input, { key: 'Enter', ctrlKey: true });
    expect(p.onslash).toHaveBeenCalledWith(slash[2], 'src/a.rs');
    expect(p.onsend).not.toHaveBeenCalled();
  });

  it('runs a built-in at once with Tab, and closes with Escape', async () => {
    const p = { ...props({ slash }), onslash: vi.fn() };
    render(Composer, { props: p });
    const input = screen.getByTestId('prompt-input') as HTMLTextAreaElement;
    await fireEvent.input(input, { target: { value: '/com' } });
    await fireEvent.keyDown(input, { key: 'Tab' });
    expect(p.onslash).toHaveBeenCalledWith(slash[0], '');
    await fireEvent.input(input, { target: { value: '/' } });
    expect(screen.getAllByRole('option')).toHaveLength(3);
    await fireEvent.keyDown(input, { key: 'Escape' });
    expect(screen.queryByRole('listbox')).toBeNull();
    // Text that is no command is sent as it is.
    await fireEvent.input(input, { target: { value: '/tmp/x.log is broken' } });
    await fireEvent.keyDown(input, { key: 'Enter', ctrlKey: true });
    expect(p.onsend).toHaveBeenCalled();
  });
});
