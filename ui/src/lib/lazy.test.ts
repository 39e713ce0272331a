import { render } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import TurnView from '../transcript/TurnView.svelte';
import { Lazy, markdown } from './lazy.svelte';
import type { Turn } from './transcript';

const turn = (text: string): Turn => ({ n: 1, thinking: '', text, cards: [], notices: [] });

describe('code loaded on first use', () => {
  // This file never loads Markdown up front: the first answer shown does.
  it('shows an answer plain until Markdown is there, then rendered', async () => {
    expect(markdown.current).toBeNull();
    const { container } = render(TurnView, { props: { turn: turn('Some **bold** words') } });
    expect(container.querySelector('.plain')).toHaveTextContent('Some **bold** words');
    await vi.waitFor(() => expect(container.querySelector('strong')).toHaveTextContent('bold'));
    expect(container.querySelector('.plain')).toBeNull();
    expect(markdown.current).not.toBeNull();
  });

  it('loads once, and again after a failure', async () => {
    const load = vi.fn<() => Promise<string>>().mockRejectedValueOnce(new Error('gone')).mockResolvedValue('module');
    const lazy = new Lazy(load);
    await expect(lazy.get()).rejects.toThrow('gone');
    expect(lazy.current).toBeNull();
    await expect(Promise.all([lazy.get(), lazy.get()])).resolves.toEqual(['module', 'module']);
    expect(lazy.current).toBe('module');
    await lazy.get();
    expect(load).toHaveBeenCalledTimes(2);
  });
});
