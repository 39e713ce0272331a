import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { OPEN_TURNS, SessionController } from '../lib/session.svelte';
import SessionsSidebar from './SessionsSidebar.svelte';
import { worktree } from '../test/worktrees';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

const summary = (id: string, title: string) => ({
  id,
  title,
  model: 'm',
  created: '2025-01-01T10:00:00Z',
  updated: '2025-01-01T11:00:00Z',
  size_bytes: 100,
});

beforeEach(() => {
  vi.resetAllMocks();
  api.listSessions.mockResolvedValue([summary('s1', 'Write hello'), summary('s2', 'Fix the bug')]);
  api.loadSession.mockResolvedValue({
    header: { format: 1, id: 's2', project: '/p', model: 'm', created: '', title: 'Fix the bug' },
    messages: [],
    events: [],
    warnings: [],
  });
});

const items = () => screen.getAllByTestId('session-item');
const item = (id: string) => items().find((i) => i.dataset.sessionId === id)!;

describe('SessionsSidebar', () => {
  it('lists sessions and opens one', async () => {
    const session = new SessionController('/p');
    render(SessionsSidebar, { props: { session } });
    await vi.waitFor(() => expect(items().map((i) => i.dataset.sessionId)).toEqual(['s1', 's2']));
    await fireEvent.click(within(item('s2')).getByTestId('session-open'));
    await vi.waitFor(() => expect(session.sessionId).toBe('s2'));
    expect(api.loadSession).toHaveBeenCalledWith('/p', 's2', OPEN_TURNS);
  });

  it('deletes a session and reloads the list', async () => {
    api.deleteSession.mockResolvedValue(null);
    render(SessionsSidebar, { props: { session: new SessionController('/p') } });
    await vi.waitFor(() => expect(items()).toHaveLength(2));
    api.listSessions.mockResolvedValue([summary('s2', 'Fix the bug')]);
    await fireEvent.click(within(item('s1')).getByTestId('session-delete'));
    expect(api.deleteSession).not.toHaveBeenCalled();
    await fireEvent.click(within(item('s1')).getByTestId('session-delete-cancel'));
    expect(api.deleteSession).not.toHaveBeenCalled();
    await fireEvent.click(within(item('s1')).getByTestId('session-delete'));
    expect(within(item('s1')).getByTestId('session-delete-confirm')).toHaveAccessibleName(/Yes, delete session/);
    await fireEvent.click(within(item('s1')).getByTestId('session-delete-confirm'));
    expect(api.deleteSession).toHaveBeenCalledWith('/p', 's1');
    await vi.waitFor(() => expect(items()).toHaveLength(1));
  });

  it('exports as Markdown and JSON and says where', async () => {
    api.exportSession.mockResolvedValueOnce('/home/u/s1.md').mockResolvedValueOnce(null);
    render(SessionsSidebar, { props: { session: new SessionController('/p') } });
    await vi.waitFor(() => expect(items()).toHaveLength(2));
    await fireEvent.click(within(item('s1')).getByTestId('session-export-markdown'));
    expect(await screen.findByText('Exported to /home/u/s1.md')).toBeInTheDocument();
    await fireEvent.click(within(item('s1')).getByTestId('session-export-json'));
    expect(api.exportSession).toHaveBeenLastCalledWith('/p', 's1', 'json');
  });

  it('searches and shows the hits', async () => {
    api.searchSessions.mockResolvedValue([
      { session_id: 's2', title: 'Fix the bug', message_index: 3, snippet: '…the bug in parser…' },
    ]);
    render(SessionsSidebar, { props: { session: new SessionController('/p') } });
    await fireEvent.input(screen.getByTestId('session-search'), { target: { value: 'parser' } });
    await vi.waitFor(() => expect(items().map((i) => i.dataset.sessionId)).toEqual(['s2']));
    expect(api.searchSessions).toHaveBeenCalledWith('/p', 'parser');
    expect(item('s2')).toHaveTextContent('the bug in parser');
    // A hit opens its session whole, to show the message it found.
    await fireEvent.click(within(item('s2')).getByTestId('session-open'));
    await vi.waitFor(() => expect(api.loadSession).toHaveBeenCalledWith('/p', 's2', undefined));
  });

  it('has a search box that Escape and its clear button empty, with no WebKit search field', async () => {
    render(SessionsSidebar, { props: { session: new SessionController('/p') } });
    const box = screen.getByRole<HTMLInputElement>('searchbox', { name: 'Search sessions' });
    // type="search" would make WebKit load an SVG document for its clear button.
    expect(box.type).toBe('text');
    expect(document.querySelector('input[type=search]')).toBeNull();
    expect(screen.queryByTestId('session-search-clear')).toBeNull();

    await fireEvent.input(box, { target: { value: 'parser' } });
    await fireEvent.keyDown(box, { key: 'Escape' });
    expect(box.value).toBe('');

    await fireEvent.input(box, { target: { value: 'parser' } });
    await fireEvent.click(screen.getByTestId('session-search-clear'));
    expect(box.value).toBe('');
    expect(document.activeElement).toBe(box);
    expect(screen.queryByTestId('session-search-clear')).toBeNull();
  });

  it('starts a new session', async () => {
    const session = new SessionController('/p');
    session.sessionId = 's1';
    render(SessionsSidebar, { props: { session } });
    await fireEvent.click(screen.getByTestId('new-session'));
    expect(session.sessionId).toBeNull();
  });

  it('starts a new session in its own worktree', async () => {
    const session = new SessionController('/p');
    session.sessionId = 's1';
    const onshow = vi.fn();
    render(SessionsSidebar, { props: { session, onshow } });
    const button = screen.getByTestId('new-worktree-session');
    expect(button).toHaveAccessibleName('New in worktree');
    expect(button).toHaveAttribute('title', 'A new session on its own branch, in its own checkout');
    await fireEvent.click(button);
    expect(session.sessionId).toBeNull();
    expect(session.inWorktree).toBe(true);
    expect(onshow).toHaveBeenCalledWith(true);
  });

  it("shows a worktree session's branch and state, live or landed", async () => {
    api.listSessions.mockResolvedValue([summary('s1', 'Write hello'), summary('s2', 'Fix the bug'), summary('s3', 'Plain')]);
    api.worktrees.mockResolvedValue([
      worktree({ session: 's1', branch: 'paddock/write-hello' }),
      worktree({ name: 'fix-bug', session: 's2', branch: 'paddock/fix-the-bug' }),
      // Made, no session yet: nothing to show it against.
      worktree({ name: 'spare', session: undefined, branch: 'paddock/spare' }),
    ]);
    const session = new SessionController('/p');
    render(SessionsSidebar, { props: { session } });
    await vi.waitFor(() => expect(within(item('s1')).getByTestId('session-branch')).toHaveTextContent('paddock/write-hello'));
    expect(api.worktrees).toHaveBeenCalledWith('/p');
    const state = (id: string) => within(item(id)).getByTestId('session-state');
    expect(within(item('s2')).getByTestId('session-branch').textContent).toBe('paddock/fix-the-bug');
    expect(state('s1').textContent).toBe('done');
    expect(within(item('s3')).queryByTestId('session-branch')).toBeNull();
    expect(within(item('s3')).queryByTestId('session-state')).toBeNull();
    expect(screen.queryByText('paddock/spare')).toBeNull();

    // Live runs first: running, or waiting for an approval.
    session.liveSessions = ['s1', 's2'];
    session.waitingSessions = ['s2'];
    await vi.waitFor(() => expect(state('s1').textContent).toBe('running'));
    expect(state('s2').textContent).toBe('waiting');
    expect(within(item('s1')).getByTestId('session-running')).toBeInTheDocument();

    // Landed: the list is asked again when it may have changed.
    session.liveSessions = [];
    session.waitingSessions = [];
    api.worktrees.mockResolvedValue([
      worktree({ session: 's1', branch: 'paddock/write-hello', state: 'merged', into: 'main', commit: 'abc' } as never),
      worktree({ name: 'fix-bug', session: 's2', branch: 'paddock/fix-the-bug', state: 'kept' }),
    ]);
    session.listVersion++;
    await vi.waitFor(() => expect(state('s1').textContent).toBe('merged'));
    expect(state('s2').textContent).toBe('kept');
  });

  it('lists the sessions of a folder whose worktrees cannot be listed', async () => {
    api.worktrees.mockRejectedValue({ code: 'io', message: 'nope' });
    render(SessionsSidebar, { props: { session: new SessionController('/p') } });
    await vi.waitFor(() => expect(items()).toHaveLength(2));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.queryByTestId('session-branch')).toBeNull();
  });
});
