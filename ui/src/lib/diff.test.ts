import { describe, expect, it } from 'vitest';
import type { FileChange } from './bindings';
import { bodyText, countsText, hunkHeader, modeText, numberLines, shownHunks } from './diff';
import { highlightLine, languageForPath } from './highlight';
import { edit, hunk, line } from '../test/changes';

const lines = (n: number, op: 'added' | 'context' = 'added') => Array.from({ length: n }, (_, i) => line(op, `l${i}`));

describe('diff helpers', () => {
  it('numbers each side from the hunk starts', () => {
    const h = edit.diff.kind === 'text' ? edit.diff.hunks[0]! : hunk(1, 1, []);
    expect(hunkHeader(h)).toBe('@@ -7,3 +7,3 @@');
    expect(numberLines(h).map((r) => [r.op, r.old, r.new])).toEqual([
      ['context', 7, 7],
      ['removed', 8, undefined],
      ['added', undefined, 8],
      ['context', 9, 9],
    ]);
  });

  it('shows the first hunks up to the limit, cutting the last one short', () => {
    const hunks = [hunk(1, 1, lines(30, 'context')), hunk(100, 100, lines(30)), hunk(300, 300, lines(5))];
    const shown = shownHunks(hunks, 40);
    expect(shown.map((h) => [h.header, h.rows.length, h.cut])).toEqual([
      ['@@ -1,30 +1,30 @@', 30, 0],
      ['@@ -100,0 +100,30 @@', 10, 20],
    ]);
    expect(shown[1]!.rows[0]!.new).toBe(100);
    expect(shownHunks(hunks).map((h) => h.rows.length)).toEqual([30, 30, 5]);
    expect(shownHunks(hunks, 0)).toEqual([]);
  });

  it('says what a change without lines is', () => {
    const c = (diff: FileChange['diff'], kind: FileChange['kind'] = 'modified'): FileChange => ({
      path: 'x',
      kind,
      added: 12,
      removed: 3,
      diff,
    });
    expect(bodyText(c({ kind: 'binary', old_bytes: 1229, new_bytes: 3482 }))).toBe('Binary file, 1.2 KB → 3.4 KB');
    expect(bodyText(c({ kind: 'binary', old_bytes: 0, new_bytes: 3482 }, 'created'))).toBe('Binary file, 3.4 KB');
    expect(bodyText(c({ kind: 'too_large', old_bytes: 2_097_152, new_bytes: 3_145_728 }))).toBe(
      'Too large to show: +12 −3 lines, 2.0 MB → 3.0 MB',
    );
    expect(bodyText(c({ kind: 'link', old: null, new: '../lib' }, 'created'))).toBe('Symbolic link → ../lib');
    expect(bodyText(c({ kind: 'link', old: 'a', new: 'b' }))).toBe('Symbolic link → a, now → b');
    expect(bodyText(c({ kind: 'folder' }, 'created'))).toBe('Folder created');
    expect(bodyText(c({ kind: 'folder' }, 'deleted'))).toBe('Folder removed');
    expect(bodyText(c({ kind: 'text', hunks: [] }, 'created'))).toBe('Empty file');
    expect(bodyText(edit)).toBeUndefined();
  });

  it('shows a mode when it changed, and on new files that can be run', () => {
    const m = (kind: FileChange['kind'], old: number | null, now: number | null) =>
      modeText({ ...edit, kind, mode: { old, new: now } });
    expect(m('modified', 0o100644, 0o100755)).toBe('mode 644 → 755');
    expect(m('created', null, 0o755)).toBe('mode 755');
    expect(m('created', null, 0o644)).toBeUndefined();
    expect(m('deleted', 0o644, null)).toBeUndefined();
    expect(modeText(edit)).toBeUndefined();
  });

  it('counts lines, or says there are none to count', () => {
    expect(countsText({ added: 3, removed: 1, lines_counted: true })).toBe('+3 −1');
    expect(countsText({ added: 0, removed: 0, lines_counted: false })).toBe('not text');
  });
});

describe('highlighting a line', () => {
  it('picks the language by extension', () => {
    expect(languageForPath('src/app.ts')).toBe('ts');
    expect(languageForPath('Cargo.TOML')).toBe('toml');
    expect(languageForPath('README')).toBeUndefined();
    expect(languageForPath('notes.unknownext')).toBeUndefined();
  });

  it('highlights known languages and escapes everything else', () => {
    expect(highlightLine('const x = 1;', 'ts')).toContain('<span class="hljs-keyword">const</span>');
    const hostile = '<img src=x onerror=alert(1)> "q" \'s\' &amp;';
    for (const lang of [undefined, 'ts', 'html', 'bash']) {
      const html = highlightLine(hostile, lang);
      expect(html).not.toMatch(/<img|<\/?(?!span)\w/);
      const div = document.createElement('div');
      div.innerHTML = html;
      expect(div.textContent).toBe(hostile);
      expect(div.querySelector('img')).toBeNull();
    }
  });
});
