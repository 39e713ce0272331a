import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FileChange } from '../lib/bindings';
import { edit, hunk, line, textChange } from '../test/changes';
import DiffView from './DiffView.svelte';
import { highlighting } from '../lib/lazy.svelte';

// Loaded on first use in the app; here up front, as in a window that has shown one.
beforeAll(async () => {
  await highlighting.get();
});

const gutters = () =>
  screen.getAllByTestId('diff-line').map((row) => {
    const [old, now] = row.querySelectorAll('td.num');
    return [row.dataset.op, old!.textContent, now!.textContent];
  });

const long = (n: number) =>
  textChange('notes.txt', [hunk(0, 1, Array.from({ length: n }, (_, i) => line('added', `line ${i + 1}`)))], 'created');

describe('DiffView', () => {
  it('numbers old and new lines from a hunk starting at 7, with its separator and counts', () => {
    render(DiffView, { props: { change: edit } });
    const view = screen.getByTestId('diff-view');
    expect(view).toHaveAttribute('data-path', 'src/app.ts');
    expect(view.querySelector('header')).toHaveTextContent('src/app.ts modified +1 −1');
    expect(view.querySelector('tr.hunk')).toHaveTextContent('@@ -7,3 +7,3 @@');
    expect(gutters()).toEqual([
      ['context', '7', '7'],
      ['removed', '8', ''],
      ['added', '', '8'],
      ['context', '9', '9'],
    ]);
    const [, removed, added] = screen.getAllByTestId('diff-line');
    expect(removed!.querySelector('.code')).toHaveTextContent('−const b = 2;');
    expect(added!.querySelector('.code')).toHaveTextContent('+const b = 3;');
    // Highlighted as TypeScript, by the file's extension.
    expect(added!.querySelector('.hljs-keyword')).toHaveTextContent('const');
  });

  it('marks CRLF and CR line ends and a missing final newline', () => {
    render(DiffView, {
      props: {
        change: textChange('win.txt', [
          hunk(1, 1, [line('context', 'a', 'crlf'), line('removed', 'b', 'cr'), line('added', 'b', 'missing')]),
        ]),
      },
    });
    const tags = screen.getAllByTestId('diff-eol').map((t) => [t.closest('tr')!.dataset.op, t.dataset.end, t.textContent]);
    expect(tags).toEqual([
      ['context', 'crlf', 'CRLF'],
      ['removed', 'cr', 'CR'],
      ['added', 'missing', 'No newline at end of file'],
    ]);
  });

  it('shows the first 40 lines of a longer diff until asked for all', async () => {
    render(DiffView, { props: { change: long(60) } });
    expect(screen.getAllByTestId('diff-line')).toHaveLength(40);
    expect(screen.getAllByTestId('diff-line').at(-1)).toHaveTextContent('line 40');
    await fireEvent.click(screen.getByTestId('diff-expand'));
    expect(screen.getAllByTestId('diff-line')).toHaveLength(60);
    expect(screen.queryByTestId('diff-expand')).toBeNull();
  });

  it('shows a short diff whole, and obeys a forced open or closed', async () => {
    const a = render(DiffView, { props: { change: long(40) } });
    expect(screen.getAllByTestId('diff-line')).toHaveLength(40);
    expect(screen.queryByTestId('diff-expand')).toBeNull();
    a.unmount();
    const b = render(DiffView, { props: { change: long(60), collapsed: false } });
    expect(screen.getAllByTestId('diff-line')).toHaveLength(60);
    b.unmount();
    render(DiffView, { props: { change: long(3), collapsed: true } });
    expect(screen.queryAllByTestId('diff-line')).toHaveLength(0);
    expect(screen.getByTestId('diff-view').querySelector('header')).toHaveTextContent('notes.txt created +3 −0');
    await fireEvent.click(screen.getByTestId('diff-expand'));
    expect(screen.getAllByTestId('diff-line')).toHaveLength(3);
  });

  it.each<[FileChange['diff'], FileChange['kind'], string]>([
    [{ kind: 'binary', old_bytes: 1229, new_bytes: 3482 }, 'modified', 'Binary file, 1.2 KB → 3.4 KB'],
    [{ kind: 'too_large', old_bytes: 2_097_152, new_bytes: 3_145_728 }, 'modified', 'Too large to show: +5 −2 lines, 2.0 MB → 3.0 MB'],
    [{ kind: 'link', old: null, new: 'target/dir' }, 'created', 'Symbolic link → target/dir'],
    [{ kind: 'folder' }, 'deleted', 'Folder removed'],
  ])('says what a %o change is', (diff, kind, text) => {
    render(DiffView, { props: { change: { path: 'blob', kind, added: 5, removed: 2, diff } } });
    expect(screen.getByTestId('diff-note')).toHaveTextContent(text);
    expect(screen.queryByTestId('diff-line')).toBeNull();
  });

  it('shows a mode change in the header', () => {
    render(DiffView, { props: { change: { ...edit, mode: { old: 0o644, new: 0o755 } } } });
    expect(screen.getByTestId('diff-view').querySelector('header')).toHaveTextContent('mode 644 → 755');
  });

  it.each(['page.html', 'notes.txt', 'run.sh'])('shows HTML in %s as text, never as markup', (path) => {
    const hostile = '<img src=x onerror=alert(1)>';
    render(DiffView, { props: { change: textChange(path, [hunk(1, 1, [line('added', hostile), line('context', '<script>alert(2)</script>')])]) } });
    const view = screen.getByTestId('diff-view');
    expect(view.querySelector('img, script')).toBeNull();
    const [added, context] = screen.getAllByTestId('diff-line');
    expect(within(added!).getByText((_, el) => el?.classList.contains('text') === true)).toHaveTextContent(hostile);
    expect(context!.querySelector('.text')!.textContent).toBe('<script>alert(2)</script>');
  });
});
