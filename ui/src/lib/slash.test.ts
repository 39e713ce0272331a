import { describe, expect, it } from 'vitest';
import type { SavedPrompt } from './bindings';
import { filter, items, menuQuery, parse } from './slash';

const saved: SavedPrompt[] = [
  { name: 'review', source: 'project', path: '/p/.paddock/prompts/review.md', description: 'Review', argument_hint: '[file]', status: 'unconfirmed' },
  { name: 'fix', source: 'user', path: '/c/prompts/fix.md', description: 'Fix', status: 'ready' },
  { name: 'bad', source: 'project', path: '/p/.paddock/prompts/bad.md', description: '', status: 'broken', error: 'too big' },
  { name: 'help', source: 'user', path: '/c/prompts/help.md', description: 'shadowed', status: 'ready' },
];

describe('slash commands', () => {
  it('lists built-ins, then saved prompts; a built-in name shadows a saved one', () => {
    const all = items(saved);
    expect(all.filter((i) => i.name === 'help')).toHaveLength(1);
    expect(all.find((i) => i.name === 'review')).toMatchObject({ source: 'project', hint: '[file]', unconfirmed: true });
    expect(all.find((i) => i.name === 'bad')?.error).toBe('too big');
  });

  it('opens on a leading slash and filters by what was typed', () => {
    expect(menuQuery('/')).toBe('');
    expect(menuQuery('/rev')).toBe('rev');
    expect(menuQuery('/review main.rs')).toBeNull();
    expect(menuQuery('say /rev')).toBeNull();
    const names = filter(items(saved), 're').map((i) => i.name);
    expect(names.slice(0, 2)).toEqual(['rewind', 'review']);
    expect(filter(items(saved), 'zzz')).toEqual([]);
  });

  it('reads a typed command and its arguments', () => {
    const all = items(saved);
    expect(parse('/review src/a.rs "x y"', all)).toMatchObject({ item: { name: 'review' }, args: 'src/a.rs "x y"' });
    expect(parse('/cost', all)?.args).toBe('');
    expect(parse('/tmp/x.log is broken', all)).toBeNull();
    expect(parse('/unknown x', all)).toBeNull();
  });
});
