// Model text to safe HTML: marked for Markdown, highlight.js (lib/highlight.ts) for code,
// then DOMPurify with a short allow list. Model output is untrusted: no scripts, handlers,
// styles, forms or frames, and no images, since a remote image URL is a classic way to leak
// data out of a conversation.
import DOMPurify, { type DOMPurify as DOMPurifyInstance } from 'dompurify';
import { Marked, type Tokens } from 'marked';
import { splitBlocks } from './blocks';
import { escapeHtml, highlightCode } from './highlight';

const ALLOWED_TAGS = [
  'a', 'b', 'blockquote', 'br', 'code', 'del', 'em', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr',
  'i', 'input', 'li', 'ol', 'p', 'pre', 'span', 'strong', 'table', 'tbody', 'td', 'th',
  'thead', 'tr', 'ul',
];
const ALLOWED_ATTR = ['href', 'title', 'class', 'type', 'checked', 'disabled', 'align'];

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    code({ text, lang }: Tokens.Code) {
      const cls = lang ? ` class="hljs language-${escapeHtml(lang.split(/\s+/)[0] ?? '')}"` : ' class="hljs"';
      return `<pre><code${cls}>${highlightCode(text, lang)}</code></pre>\n`;
    },
  },
});

/** The page's sanitizer: an instance of its own, configured once. `sanitize` given a config
 * reads it anew on every call, and a streamed answer's last block is sanitized every frame. */
let purifier: DOMPurifyInstance | undefined;
function sanitizer(): DOMPurifyInstance {
  if (purifier) return purifier;
  const p = DOMPurify(window);
  p.setConfig({ ALLOWED_TAGS, ALLOWED_ATTR, ALLOW_DATA_ATTR: false });
  // Only inert links: checkboxes from task lists stay read-only, other inputs go.
  p.addHook('uponSanitizeElement', (node, data) => {
    if (data.tagName === 'input' && (node as Element).getAttribute('type') !== 'checkbox') {
      node.parentNode?.removeChild(node);
    }
  });
  p.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'INPUT') node.setAttribute('disabled', '');
    if (node.tagName === 'A') {
      const href = node.getAttribute('href') ?? '';
      if (!/^(https?:|mailto:|#)/i.test(href)) node.removeAttribute('href');
    }
  });
  purifier = p;
  return p;
}

const purify = (html: string): string => sanitizer().sanitize(html);

/** Blocks rendered last, by their text: a streamed answer's growing block is rendered ahead
 * of the frame that shows it (transcript/Markdown.svelte), and shown from here. */
const rendered = new Map<string, string>();
const RENDERED_KEPT = 8;

/** One block of Markdown (see lib/blocks.ts) to sanitized HTML, safe for `{@html}`. */
export function renderBlock(raw: string): string {
  const hit = rendered.get(raw);
  if (hit !== undefined) return hit;
  const html = renderMarkdown(raw);
  rendered.set(raw, html);
  if (rendered.size > RENDERED_KEPT) rendered.delete(rendered.keys().next().value ?? '');
  return html;
}

/** Text that runs the lexer (block and inline), the renderer and the sanitizer through their
 * common paths, and no highlighting (its languages load only when a code block needs them). */
const WARM_SAMPLE = '# A\n\nSome **b**, `c` and [d](https://example.com).\n\n- e\n- f\n\n> g\n';

/** Runs Markdown's parts once on a small sample: their first run costs several times a later
 * one (the interpreter compiles each function it meets, the sanitizer builds its state), and
 * is better spent while a session loads than in its first frame. */
export function warmMarkdown(): void {
  for (const block of splitBlocks(WARM_SAMPLE)) renderMarkdown(block.raw);
}

/** Markdown to sanitized HTML, safe for `{@html}`. */
export function renderMarkdown(source: string): string {
  return purify(marked.parse(source, { async: false }));
}
