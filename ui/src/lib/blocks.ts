// A streamed answer as Markdown blocks, so a finished block is lexed and rendered once: each
// tick re-reads only the last block (which may still grow) and what came after it, and only
// at the block level: a block's inline Markdown is read when it is rendered.
import { Lexer, type Token } from 'marked';

export interface Block {
  /** Offset of the block in the text: its identity for keyed rendering. */
  at: number;
  raw: string;
  /** A fenced or indented code block: its text (what "Copy" copies) and language. */
  code?: { text: string; lang: string };
}

const lexer = () => new Lexer({ gfm: true, breaks: false });

/** A copy of `s` that owns its characters. A slice shares the buffer of the string it was cut
 * from (JavaScriptCore and V8 alike), and a streamed answer is a new string each tick: a block
 * cut from it and kept for the rest of the stream would keep that tick's whole answer alive.
 * A 200 KB answer's blocks held 29 MB that way (JavaScriptCore, measured with its `jsc`
 * shell). A JSON round trip copies in both engines; `(' ' + s).slice(1)` does not in
 * JavaScriptCore. */
const owned = (s: string): string => JSON.parse(JSON.stringify(s)) as string;

function toBlocks(tokens: Token[], base: number): Block[] {
  const out: Block[] = [];
  let at = base;
  for (const t of tokens) {
    if (t.type === 'space') {
      at += t.raw.length;
      continue;
    }
    const block: Block = { at, raw: owned(t.raw) };
    if (t.type === 'code') block.code = { text: owned(t.text), lang: owned(t.lang ?? '') };
    out.push(block);
    at += t.raw.length;
  }
  return out;
}

/** Block tokens only: the inline pass `lex` adds is most of its cost, and `renderBlock`
 * does it again anyway. */
const blockTokens = (text: string): Token[] => lexer().blockTokens(text, []);

/** `text` with the line endings Markdown's rules read (`\n`), as `lex` would make them.
 * Offsets count in this text, so a model that writes `\r\n` gets the same blocks as one that
 * writes `\n`; a prefix of the input stays a prefix of the output. */
const lineEnds = (text: string): string =>
  text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;

/** Splits `raw` into blocks, reusing `previous` (the blocks of an earlier, shorter text it
 * starts with) up to their last one. */
export function splitBlocks(raw: string, previous: Block[] = [], previousText = ''): Block[] {
  const text = lineEnds(raw);
  const last = previous.at(-1);
  if (!last || !raw.startsWith(previousText)) return toBlocks(blockTokens(text), 0);
  const kept = previous.slice(0, -1);
  return kept.concat(toBlocks(blockTokens(text.slice(last.at)), last.at));
}
