import { describe, expect, it } from 'vitest';
import { attachmentsOf, insertMention, mentionAt } from './mentions';

describe('@ in the prompt', () => {
  it('is a word the caret is in that starts with @', () => {
    expect(mentionAt('look at @src/ma', 15)).toEqual({ start: 8, query: 'src/ma' });
    expect(mentionAt('@', 1)).toEqual({ start: 0, query: '' });
    expect(mentionAt('mail me@example.com', 19)).toBeNull();
    expect(mentionAt('@src done', 9)).toBeNull();
    expect(mentionAt('look at @src/ma and more', 15)).toEqual({ start: 8, query: 'src/ma' });
  });

  it('picking replaces the typed name and attaches each path once', () => {
    const token = { start: 8, query: 'ma' };
    expect(insertMention('look at @ma', token, { path: 'src/main.rs', folder: false })).toEqual({
      text: 'look at @src/main.rs ',
      caret: 21,
    });
    expect(insertMention('look at @ma then', token, { path: 'src', folder: true }).text).toBe('look at @src/ then');
    expect(
      attachmentsOf([
        { path: 'a', folder: false },
        { path: 'a', folder: false },
        { path: 'b', folder: true },
      ]),
    ).toEqual([
      { kind: 'mention', path: 'a' },
      { kind: 'mention', path: 'b' },
    ]);
  });
});
