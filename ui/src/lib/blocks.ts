// A streamed answer as Markdown blocks, so a finished block is lexed and rendered once: each
// tick re-reads only the last block (which may still grow) and what came after it.
import { Lexer, type Token } from 'marked';

export interface Block {
  /** Offset of the block in the text: its identity for keyed rendering. */
  at: number;
  raw: string;
  /** A fenced or indented code block: its text (what "Copy" copies) and language. */
  code?: { text: string; lang: string };
}

const lexer = () => new Lexer({ gfm: true, breaks: false });

function toBlocks(tokens: Token[], base: number): Block[] {
  const out: Block[] = [];
  let at = base;
  for (const t of tokens) {
    if (t.type === 'space') {
      at += t.raw.length;
      continue;
    }
    const block: Block = { at, raw: t.raw };
    if (t.type === 'code') block.code = { text: t.text, lang: t.lang ?? '' };
    out.push(block);
    at += t.raw.length;
  }
  return out;
}

/** Splits `text` into blocks, reusing `previous` (the blocks of an earlier, shorter text it
 * starts with) up to their last one. */
export function splitBlocks(text: string, previous: Block[] = [], previousText = ''): Block[] {
  const last = previous.at(-1);
  if (!last || !text.startsWith(previousText)) return toBlocks(lexer().lex(text), 0);
  const kept = previous.slice(0, -1);
  return kept.concat(toBlocks(lexer().lex(text.slice(last.at)), last.at));
}
