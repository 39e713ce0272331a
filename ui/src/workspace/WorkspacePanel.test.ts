import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { WorkspaceChange, WorkspaceTree } from '../lib/bindings';
import { project, settings } from '../test/project';
import WorkspacePanel from './WorkspacePanel.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

const tree = (...paths: string[]): WorkspaceTree => ({
  root: '/home/u/proj/.agent-workspace',
  exists: true,
  truncated: false,
  entries: paths.map((p) => ({ path: p.replace(/\/$/, ''), is_dir: p.endsWith('/'), size: 5 })),
});

let notify: (c: WorkspaceChange) => void = () => {};

beforeEach(() => {
  vi.resetAllMocks();
  api.workspaceTree.mockResolvedValue(tree('notes/', 'notes/a.md', 'hello.txt'));
  api.watchWorkspace.mockImplementation(async (_p, onChange) => {
    notify = onChange;
  });
});

const paths = () => screen.getAllByTestId('workspace-entry').map((e) => `${e.dataset.kind}:${e.dataset.path}`);

describe('WorkspacePanel', () => {
  it('shows the tree, folders first', async () => {
    render(WorkspacePanel, { props: { info: project(), onchange: () => {} } });
    await vi.waitFor(() => expect(paths()).toEqual(['dir:notes', 'file:notes/a.md', 'file:hello.txt']));
    expect(screen.getByTestId('workspace-tree')).toBeInTheDocument();
    expect(api.watchWorkspace).toHaveBeenCalledWith('/home/u/proj', expect.any(Function));
  });

  it('refreshes when the watcher reports a change', async () => {
    render(WorkspacePanel, { props: { info: project(), onchange: () => {} } });
    await vi.waitFor(() => expect(paths()).toHaveLength(3));
    api.workspaceTree.mockResolvedValue(tree('notes/', 'notes/a.md', 'hello.txt', 'new.rs'));
    notify({ paths: ['new.rs'] });
    await vi.waitFor(() => expect(paths()).toContain('file:new.rs'));
  });

  it('previews text, says when a file is binary, and reloads a changed preview', async () => {
    api.readWorkspaceFile.mockResolvedValueOnce({ path: 'hello.txt', size: 5, binary: false, truncated: true, text: 'hello' });
    render(WorkspacePanel, { props: { info: project(), onchange: () => {} } });
    await vi.waitFor(() => expect(paths()).toHaveLength(3));
    const entry = () => screen.getAllByTestId('workspace-entry').find((e) => e.dataset.path === 'hello.txt')!;
    await fireEvent.click(entry());
    const preview = await screen.findByTestId('file-preview');
    expect(preview).toHaveTextContent('hello');
    expect(preview).toHaveTextContent('Only the start of this file is shown.');

    api.readWorkspaceFile.mockResolvedValueOnce({ path: 'hello.txt', size: 9, binary: true, truncated: false });
    notify({ paths: ['hello.txt'] });
    await vi.waitFor(() => expect(screen.getByTestId('file-preview')).toHaveTextContent('Binary file'));
    expect(api.readWorkspaceFile).toHaveBeenCalledTimes(2);
  });

  it('is an ARIA tree the keyboard walks: levels, one tab stop, arrows, Enter', async () => {
    api.readWorkspaceFile.mockResolvedValue({ path: 'notes/a.md', size: 5, binary: false, truncated: false, text: '# a' });
    render(WorkspacePanel, { props: { info: project(), onchange: () => {} } });
    await vi.waitFor(() => expect(paths()).toHaveLength(3));
    const tree = screen.getByRole('tree', { name: 'Workspace files' });
    const items = () => screen.getAllByRole('treeitem');
    expect(items().map((i) => [i.getAttribute('aria-level'), i.tabIndex])).toEqual([
      ['1', 0],
      ['2', -1],
      ['1', -1],
    ]);
    expect(items()[0]).toHaveAttribute('aria-expanded', 'true');
    items()[0]!.focus();
    await fireEvent.keyDown(tree, { key: 'ArrowLeft' });
    expect(paths()).toEqual(['dir:notes', 'file:hello.txt']);
    expect(items()[0]).toHaveAttribute('aria-expanded', 'false');
    await fireEvent.keyDown(tree, { key: 'ArrowRight' });
    await fireEvent.keyDown(tree, { key: 'ArrowRight' });
    expect(document.activeElement).toBe(items()[1]);
    await fireEvent.keyDown(tree, { key: 'ArrowLeft' });
    expect(document.activeElement).toBe(items()[0]);
    await fireEvent.keyDown(tree, { key: 'End' });
    expect(document.activeElement).toBe(items()[2]);
    await fireEvent.keyDown(tree, { key: 'ArrowUp' });
    await fireEvent.keyDown(tree, { key: 'Enter' });
    expect(api.readWorkspaceFile).toHaveBeenCalledWith('/home/u/proj', 'notes/a.md');
    await vi.waitFor(() => expect(items()[1]).toHaveAttribute('aria-selected', 'true'));
  });

  it('highlights a previewed file by its extension, and never runs what it holds', async () => {
    api.readWorkspaceFile.mockResolvedValue({
      path: 'notes/a.rs',
      size: 40,
      binary: false,
      truncated: false,
      text: 'fn main() { let s = "<img src=x onerror=alert(1)>"; }',
    });
    api.workspaceTree.mockResolvedValue(tree('notes/', 'notes/a.rs'));
    render(WorkspacePanel, { props: { info: project(), onchange: () => {} } });
    await vi.waitFor(() => expect(paths()).toHaveLength(2));
    await fireEvent.click(screen.getAllByTestId('workspace-entry')[1]!);
    const preview = await screen.findByTestId('file-preview');
    expect(preview.querySelector('.hljs-keyword')?.textContent).toBe('fn');
    expect(preview.querySelector('img')).toBeNull();
    expect(preview).toHaveTextContent('<img src=x onerror=alert(1)>');
  });

  it('collapses a folder', async () => {
    render(WorkspacePanel, { props: { info: project(), onchange: () => {} } });
    await vi.waitFor(() => expect(paths()).toHaveLength(3));
    await fireEvent.click(screen.getAllByTestId('workspace-entry')[0]!);
    expect(paths()).toEqual(['dir:notes', 'file:hello.txt']);
  });

  it('switches the workspace mode and watches the new root', async () => {
    const onchange = vi.fn();
    api.saveSettings.mockResolvedValue(project({ settings: { ...settings, workspace: 'project' } }));
    render(WorkspacePanel, { props: { info: project(), onchange } });
    // Saved onto the file as it is now: a hand edit since the tab opened stays.
    const edited = { ...settings, maxTurns: 7 };
    api.projectInfo.mockResolvedValue(project({ settings: edited }));
    await fireEvent.change(screen.getByTestId('workspace-mode-select'), { target: { value: 'project' } });
    await vi.waitFor(() => expect(onchange).toHaveBeenCalled());
    expect(api.saveSettings).toHaveBeenCalledWith('/home/u/proj', { ...edited, workspace: 'project' });
    await vi.waitFor(() => expect(api.watchWorkspace).toHaveBeenCalledTimes(2));
  });

  it('says when the workspace does not exist yet', async () => {
    api.workspaceTree.mockResolvedValue({ ...tree(), exists: false });
    render(WorkspacePanel, { props: { info: project(), onchange: () => {} } });
    expect(await screen.findByText(/does not exist yet/)).toBeInTheDocument();
  });
});
