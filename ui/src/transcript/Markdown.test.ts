import { fireEvent, render, screen } from '@testing-library/svelte';
import { tick } from 'svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import Markdown from './Markdown.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

const nextFrame = () => new Promise<void>((done) => requestAnimationFrame(() => void tick().then(done)));

describe('Markdown', () => {
  beforeEach(() => vi.resetAllMocks());

  it('shows a grown answer a frame later, and anything else at once', async () => {
    const { rerender, container } = render(Markdown, { props: { text: 'One.\n\nTw' } });
    expect(container.textContent).toContain('Tw');
    await rerender({ text: 'One.\n\nTwo **three**' });
    // This frame only prepares: the page still shows the text it had.
    expect(container.querySelector('strong')).toBeNull();
    // Grown again before the frame came: both land together, in the next frame.
    await rerender({ text: 'One.\n\nTwo **three** four' });
    expect(container.textContent).not.toContain('four');
    await nextFrame();
    expect(container.querySelectorAll('p')[1]?.textContent).toBe('Two three four');
    // Text that does not continue the answer (another answer in its place) is shown at once.
    await rerender({ text: 'Something else.' });
    expect(container.textContent?.trim()).toBe('Something else.');
    await nextFrame();
    expect(container.textContent?.trim()).toBe('Something else.');
  });

  it('does not re-render finished blocks while an answer streams', async () => {
    const { rerender, container } = render(Markdown, { props: { text: 'Done part.\n\nStill' } });
    const first = container.querySelector('p');
    expect(first?.textContent).toBe('Done part.');
    await rerender({ text: 'Done part.\n\nStill going, with **more**.' });
    await nextFrame();
    const paragraphs = container.querySelectorAll('p');
    expect(paragraphs[0]).toBe(first);
    expect(paragraphs[1]?.textContent).toBe('Still going, with more.');
  });

  it('re-renders the last block when it changes kind or grows at the same offset', async () => {
    const { rerender, container } = render(Markdown, { props: { text: 'Intro.\n\nTitle' } });
    const intro = container.querySelector('p');
    await rerender({ text: 'Intro.\n\nTitle\n=====\n\n```sh\ncargo' });
    await nextFrame();
    expect(container.querySelector('p')).toBe(intro);
    expect(container.querySelector('h1')?.textContent).toBe('Title');
    expect(container.querySelectorAll('p')).toHaveLength(1);
    await rerender({ text: 'Intro.\n\nTitle\n=====\n\n```sh\ncargo test\n```\n' });
    await nextFrame();
    expect(container.querySelector('pre code')?.textContent).toBe('cargo test');
    expect(container.querySelectorAll('[data-testid=code-block]')).toHaveLength(1);
  });

  it('copies a code block', async () => {
    const writeText = vi.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    render(Markdown, { props: { text: 'Run:\n\n```sh\ncargo test --workspace\n```\n' } });
    await fireEvent.click(screen.getByTestId('copy-code'));
    expect(writeText).toHaveBeenCalledWith('cargo test --workspace');
    expect(await screen.findByText('Copied', { selector: 'button' })).toBeInTheDocument();
  });

  it('shows a link before it opens it in the browser', async () => {
    api.openLink.mockResolvedValue(null);
    render(Markdown, { props: { text: 'See [the docs](https://example.com/docs?a=1).' } });
    await fireEvent.click(screen.getByText('the docs'));
    expect(screen.getByTestId('link-url')).toHaveTextContent('https://example.com/docs?a=1');
    expect(api.openLink).not.toHaveBeenCalled();
    await fireEvent.click(screen.getByTestId('link-open'));
    expect(api.openLink).toHaveBeenCalledWith('https://example.com/docs?a=1');
    await vi.waitFor(() => expect(screen.queryByTestId('link-prompt')).toBeNull());
  });

  it('offers nothing for links that are not web or mail addresses', async () => {
    render(Markdown, { props: { text: '[local](./notes.md) and [x](javascript:alert(1))' } });
    await fireEvent.click(screen.getByText('local'));
    await fireEvent.click(screen.getByText('x'));
    expect(screen.queryByTestId('link-prompt')).toBeNull();
  });
});
