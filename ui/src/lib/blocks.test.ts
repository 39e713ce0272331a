import { describe, expect, it } from 'vitest';
import { splitBlocks } from './blocks';

describe('splitBlocks', () => {
  it('splits an answer into blocks with their code', () => {
    const blocks = splitBlocks('# Title\n\nSome text.\n\n```sh\nls -la\n```\n');
    expect(blocks.map((b) => b.raw.trim())).toEqual(['# Title', 'Some text.', '```sh\nls -la\n```']);
    expect(blocks[2]?.code).toEqual({ text: 'ls -la', lang: 'sh' });
    expect(blocks.map((b) => b.at)).toEqual([0, 9, 21]);
  });

  it('keeps finished blocks as they were while the answer grows', () => {
    const a = 'First paragraph.\n\nSecond, still';
    const first = splitBlocks(a);
    const grown = 'First paragraph.\n\nSecond, still growing.\n\n```js\nlet x';
    const next = splitBlocks(grown, first, a);
    expect(next[0]).toBe(first[0]);
    expect(next.map((b) => b.raw.trim())).toEqual(['First paragraph.', 'Second, still growing.', '```js\nlet x']);
    // The same blocks as lexing the whole text at once.
    expect(next.map((b) => [b.at, b.raw])).toEqual(splitBlocks(grown).map((b) => [b.at, b.raw]));
  });

  it('starts over when the text is not a continuation', () => {
    const first = splitBlocks('one\n\ntwo');
    const other = splitBlocks('three', first, 'one\n\ntwo');
    expect(other.map((b) => b.raw)).toEqual(['three']);
  });
});
