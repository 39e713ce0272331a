import { describe, expect, it, vi } from 'vitest';
import type { ToolGrantInfo } from './bindings';
import { exitText, formatDuration, formatTokens, groupDigits, shortNumber, turnUsageText } from './format';
import { groupGrants, splitMcpName } from './grants';
import { treeRows } from './tree';

describe('grants grouping', () => {
  const info = (name: string): ToolGrantInfo => ({ name, grant: 'deny', reason: '', runtime: name.startsWith('mcp__'), mutates: false });

  it('splits MCP names, preferring known servers', () => {
    expect(splitMcpName('mcp__everything__echo')).toEqual({ server: 'everything', tool: 'echo' });
    expect(splitMcpName('mcp__my__srv__get_x', ['my__srv'])).toEqual({ server: 'my__srv', tool: 'get_x' });
    expect(splitMcpName('bash')).toBeNull();
  });

  it('keeps built-ins in order and groups MCP tools by server', () => {
    const g = groupGrants(['file_read', 'mcp__b__x', 'bash', 'mcp__a__y', 'mcp__b__z'].map(info));
    expect(g.builtIn.map((t) => t.name)).toEqual(['file_read', 'bash']);
    expect(g.mcp.map((m) => [m.server, m.tools.map((t) => t.tool)])).toEqual([
      ['a', ['y']],
      ['b', ['x', 'z']],
    ]);
  });

  it('gives a known server a group even with no tools', () => {
    const g = groupGrants(['mcp__b__x'].map(info), ['b', 'down']);
    expect(g.mcp.map((m) => [m.server, m.tools.length])).toEqual([
      ['b', 1],
      ['down', 0],
    ]);
  });
});

describe('treeRows', () => {
  const entries = [
    { path: 'b.txt', is_dir: false, size: 3 },
    { path: 'src', is_dir: true, size: 0 },
    { path: 'src/main.rs', is_dir: false, size: 10 },
    { path: 'a.txt', is_dir: false, size: 1 },
  ];

  it('puts folders first, indents children', () => {
    expect(treeRows(entries, new Set()).map((r) => `${r.depth}:${r.path}`)).toEqual([
      '0:src',
      '1:src/main.rs',
      '0:a.txt',
      '0:b.txt',
    ]);
  });

  it('hides what is under a collapsed folder', () => {
    expect(treeRows(entries, new Set(['src'])).map((r) => r.path)).toEqual(['src', 'a.txt', 'b.txt']);
  });
});

describe('format', () => {
  it('formats usage, durations and run ends', () => {
    expect(formatTokens({ input_tokens: 1234, output_tokens: 5, cache_read_tokens: 0 })).toBe('1,234 in · 5 out');
    expect(formatTokens({ input_tokens: 1234, output_tokens: 5, cache_read_tokens: 1000 })).toBe(
      '1,234 in (1,000 cached) · 5 out',
    );
    expect(formatDuration(12)).toBe('12 ms');
    expect(formatDuration(1500)).toBe('1.5 s');
    expect(exitText('max_turns', 10)).toContain('max turns');
  });

  it("leaves out a turn's tokens when none were counted", () => {
    const u = (input_tokens: number, output_tokens: number) => ({ input_tokens, output_tokens, cache_read_tokens: 0 });
    expect(turnUsageText(1, 100, u(0, 0))).toBe('Turn 1 of 100');
    expect(turnUsageText(2, undefined, u(0, 0))).toBe('Turn 2');
    expect(turnUsageText(1, 100, u(12, 0))).toBe('Turn 1 of 100 · 12 in · 0 out');
  });
});

describe('numbers without Intl', () => {
  it.each([
    [0, '0'],
    [999, '999'],
    [1_000, '1,000'],
    [1_234_567, '1,234,567'],
    [-1_234, '-1,234'],
    [1_234.5678, '1,234.568'],
    [0.5, '0.5'],
  ])('%d reads %s, as Intl.NumberFormat("en") would', (n, s) => {
    expect(groupDigits(n)).toBe(s);
    expect(new Intl.NumberFormat('en').format(n)).toBe(s);
  });

  it.each([950, 1_234, 12_345, 200_000, 999_949, 999_999, 1_047_576, 1_250, 1_350, 25_000_000, 2_000_000_000])(
    '%d reads as Intl compact "en" would',
    (n) => {
      const intl = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });
      expect(shortNumber(n)).toBe(intl.format(n).replace('K', 'k'));
    },
  );

  it('asks Intl for nothing (it loads ICU into the web process)', () => {
    const spy = vi.spyOn(Intl, 'NumberFormat');
    const toLocale = vi.spyOn(Number.prototype, 'toLocaleString');
    formatTokens({ input_tokens: 1234, output_tokens: 5, cache_read_tokens: 1000 });
    shortNumber(12_345);
    expect(spy).not.toHaveBeenCalled();
    expect(toLocale).not.toHaveBeenCalled();
    spy.mockRestore();
    toLocale.mockRestore();
  });
});
