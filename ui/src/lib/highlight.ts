// highlight.js (core and a few languages, to keep the bundle small), shared by Markdown code
// blocks and diffs. Its output is HTML built from untrusted text: it escapes that text, and a
// diff line is checked again below before it may reach {@html}.
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const languages = { bash, css, diff, go, ini, javascript, json, python, rust, sql, typescript, xml, yaml };

// Registered on first use: each definition builds its modes when registered, a cost every
// window paid at load whether or not it ever showed code.
let registered = false;
function ready(): typeof hljs {
  if (registered) return hljs;
  registered = true;
  for (const [name, lang] of Object.entries(languages)) hljs.registerLanguage(name, lang);
  hljs.registerAliases(['sh', 'shell', 'zsh', 'console'], { languageName: 'bash' });
  hljs.registerAliases(['js', 'jsx', 'mjs', 'cjs'], { languageName: 'javascript' });
  hljs.registerAliases(['ts', 'tsx', 'mts', 'cts'], { languageName: 'typescript' });
  hljs.registerAliases(['py'], { languageName: 'python' });
  hljs.registerAliases(['rs'], { languageName: 'rust' });
  hljs.registerAliases(['html', 'htm', 'svg', 'svelte', 'vue'], { languageName: 'xml' });
  hljs.registerAliases(['yml'], { languageName: 'yaml' });
  hljs.registerAliases(['toml', 'cfg', 'conf'], { languageName: 'ini' });
  hljs.registerAliases(['scss', 'less'], { languageName: 'css' });
  hljs.registerAliases(['patch'], { languageName: 'diff' });
  return hljs;
}

export function escapeHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** The registered language for a name or alias, lowercased; undefined when there is none. */
export function languageOf(name: string | undefined): string | undefined {
  const n = name?.trim().toLowerCase();
  return n && ready().getLanguage(n) ? n : undefined;
}

/** A code block as highlighted HTML (escaped text when the language is unknown). */
export function highlightCode(code: string, lang: string | undefined): string {
  const name = languageOf(lang?.trim().split(/\s+/)[0]);
  if (!name) return escapeHtml(code);
  return ready().highlight(code, { language: name, ignoreIllegals: true }).value;
}

/** The highlighting language of a file, by its extension. */
export function languageForPath(path: string): string | undefined {
  const file = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  const dot = file.lastIndexOf('.');
  return dot > 0 ? languageOf(file.slice(dot + 1)) : undefined;
}

// Exactly what highlight.js emits: its span tags with hljs- classes, around escaped text.
const HLJS_TAG = /<span class="(?:hljs|language)-[\w-]+(?: [\w-]+)*">|<\/span>/g;

/**
 * One line of a file as HTML safe for {@html}: highlighted when the language is known and
 * the result holds nothing but highlight.js's own spans, else escaped plain text.
 */
export function highlightLine(text: string, language: string | undefined): string {
  if (!language) return escapeHtml(text);
  try {
    const html = ready().highlight(text, { language, ignoreIllegals: true }).value;
    if (/[<>"]/.test(html.replace(HLJS_TAG, ''))) return escapeHtml(text);
    return html;
  } catch {
    return escapeHtml(text);
  }
}

/** Largest file text highlighted; longer previews are shown plain (highlighting is per
 * keystroke-free, but a huge file would still stall the window). */
const MAX_HIGHLIGHT_CHARS = 200_000;

/**
 * A workspace file's text as HTML safe for {@html}: highlighted by its extension when known
 * and the result holds only highlight.js's own spans, else escaped plain text.
 */
export function highlightFile(text: string, path: string): string {
  if (text.length > MAX_HIGHLIGHT_CHARS) return escapeHtml(text);
  return highlightLine(text, languageForPath(path));
}
