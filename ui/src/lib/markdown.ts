// Model text to safe HTML: marked for Markdown, highlight.js (core + a few languages, to keep
// the bundle small) for code, then DOMPurify with a short allow list. Model output is
// untrusted: no scripts, handlers, styles, forms or frames, and no images, since a remote
// image URL is a classic way to leak data out of a conversation.
import DOMPurify from 'dompurify';
import { Marked, type Tokens } from 'marked';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const languages = { bash, css, diff, go, javascript, json, python, rust, sql, typescript, xml, yaml };
for (const [name, lang] of Object.entries(languages)) hljs.registerLanguage(name, lang);
hljs.registerAliases(['sh', 'shell', 'zsh', 'console'], { languageName: 'bash' });
hljs.registerAliases(['js', 'jsx', 'mjs'], { languageName: 'javascript' });
hljs.registerAliases(['ts', 'tsx'], { languageName: 'typescript' });
hljs.registerAliases(['py'], { languageName: 'python' });
hljs.registerAliases(['rs'], { languageName: 'rust' });
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' });
hljs.registerAliases(['yml'], { languageName: 'yaml' });

const ALLOWED_TAGS = [
  'a', 'b', 'blockquote', 'br', 'code', 'del', 'em', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr',
  'i', 'input', 'li', 'ol', 'p', 'pre', 'span', 'strong', 'table', 'tbody', 'td', 'th',
  'thead', 'tr', 'ul',
];
const ALLOWED_ATTR = ['href', 'title', 'class', 'type', 'checked', 'disabled', 'align'];

export function escapeHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function highlight(code: string, lang: string | undefined): string {
  const name = lang?.trim().split(/\s+/)[0]?.toLowerCase();
  if (name && hljs.getLanguage(name)) {
    return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
  }
  return escapeHtml(code);
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    code({ text, lang }: Tokens.Code) {
      const cls = lang ? ` class="hljs language-${escapeHtml(lang.split(/\s+/)[0] ?? '')}"` : ' class="hljs"';
      return `<pre><code${cls}>${highlight(text, lang)}</code></pre>\n`;
    },
  },
});

let hooked = false;
function purify(html: string): string {
  if (!hooked) {
    // Only inert links: checkboxes from task lists stay read-only, other inputs go.
    DOMPurify.addHook('uponSanitizeElement', (node, data) => {
      if (data.tagName === 'input' && (node as Element).getAttribute('type') !== 'checkbox') {
        node.parentNode?.removeChild(node);
      }
    });
    DOMPurify.addHook('afterSanitizeAttributes', (node) => {
      if (node.tagName === 'INPUT') node.setAttribute('disabled', '');
      if (node.tagName === 'A') {
        const href = node.getAttribute('href') ?? '';
        if (!/^(https?:|mailto:|#)/i.test(href)) node.removeAttribute('href');
      }
    });
    hooked = true;
  }
  return DOMPurify.sanitize(html, { ALLOWED_TAGS, ALLOWED_ATTR, ALLOW_DATA_ATTR: false });
}

/** Markdown to sanitized HTML, safe for `{@html}`. */
export function renderMarkdown(source: string): string {
  return purify(marked.parse(source, { async: false }));
}
