import { describe, expect, it } from 'vitest';
import { splitBlocks, type Block } from './blocks';

/** `chars` of prose in paragraphs of 90 words, like the desktop benchmark's long answer. */
function prose(chars: number): string {
  const words = ['the', 'parser', 'allocates', 'a', 'buffer', 'for', 'each', 'token', '`Vec`'];
  let text = '';
  for (let i = 1; text.length < chars; i++) text += words[i % words.length] + (i % 90 ? ' ' : '.\n\n');
  return text.slice(0, chars);
}

/** Node's collector and heap size, from inside the test worker (the UI's types leave Node out,
 * so its modules are imported by name). */
async function nodeHeap(): Promise<{ gc: () => void; used: () => number }> {
  const v8: string = 'node:v8';
  const vm: string = 'node:vm';
  const { setFlagsFromString } = (await import(v8)) as { setFlagsFromString: (f: string) => void };
  const { runInNewContext } = (await import(vm)) as { runInNewContext: (code: string) => unknown };
  setFlagsFromString('--expose-gc');
  const proc = (globalThis as unknown as { process: { memoryUsage: () => { heapUsed: number } } }).process;
  return { gc: runInNewContext('gc') as () => void, used: () => proc.memoryUsage().heapUsed };
}

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

  it('reads \\r\\n line endings as \\n, streamed or whole', () => {
    const crlf = 'One.\r\n\r\nTwo,\r\nstill one.\r\n\r\n```sh\r\nls\r\n```\r\n\r\nThree.';
    const whole = splitBlocks(crlf.replaceAll('\r\n', '\n'));
    expect(whole.map((b) => b.raw.trim())).toEqual(['One.', 'Two,\nstill one.', '```sh\nls\n```', 'Three.']);
    // Ticks that end between \r and \n, and everywhere else.
    let blocks: Block[] = [];
    let seen = '';
    for (let n = 1; n <= crlf.length; n += 3) {
      const text = crlf.slice(0, n);
      blocks = splitBlocks(text, blocks, seen);
      seen = text;
    }
    blocks = splitBlocks(crlf, blocks, seen);
    expect(blocks.map((b) => [b.at, b.raw])).toEqual(whole.map((b) => [b.at, b.raw]));
    expect(blocks[2]?.code).toEqual({ text: 'ls', lang: 'sh' });
  });

  it('keeps no earlier tick of a streamed answer alive in its blocks', async () => {
    const { gc, used } = await nodeHeap();
    const answer = prose(100_000);
    gc();
    const before = used();
    let text = '';
    let seen = '';
    let blocks: Block[] = [];
    for (let at = 0; at < answer.length; at += 64) {
      text += answer.slice(at, at + 64);
      blocks = splitBlocks(text, blocks, seen);
      seen = text;
    }
    gc();
    const held = used() - before;
    expect(blocks.length).toBeGreaterThan(150);
    // Blocks cut from the text of the tick that finished them would hold ~10 MB here (each
    // keeps that tick's whole answer); blocks with their own text, about the answer's size.
    expect(held).toBeLessThan(2_000_000);
  });
});
