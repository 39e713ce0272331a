import { beforeEach, describe, expect, it, vi } from 'vitest';

// The shell is there, and `invoke` records what each function sends it.
vi.mock('@tauri-apps/api/core', () => ({ isTauri: () => true, invoke: vi.fn() }));
const { invoke } = vi.mocked(await import('@tauri-apps/api/core'));
const api = await import('./api');

beforeEach(() => {
  invoke.mockReset();
  invoke.mockResolvedValue(null);
});

describe('the change, rewind and compaction commands', () => {
  it.each([
    ['checkpointDiff', () => api.checkpointDiff('/p', 'a', 'b', 'src/x.ts'), 'checkpoint_diff', { project: '/p', from: 'a', to: 'b', path: 'src/x.ts' }],
    ['rewindPreview', () => api.rewindPreview('/p', 's1', 2, 3, 'files_only'), 'rewind_preview', { project: '/p', sessionId: 's1', prompt: 2, turn: 3, mode: 'files_only' }],
    ['rewindSession', () => api.rewindSession('/p', 's1', 1, 0, 'both'), 'rewind_session', { project: '/p', sessionId: 's1', prompt: 1, turn: 0, mode: 'both' }],
    ['undoRewind', () => api.undoRewind('/p', 's1'), 'undo_rewind', { project: '/p', sessionId: 's1' }],
    ['compactSession', () => api.compactSession('/p', 's1'), 'compact_session', { project: '/p', sessionId: 's1' }],
    ['undoCompaction', () => api.undoCompaction('/p', 's1'), 'undo_compaction', { project: '/p', sessionId: 's1' }],
    ['editCompaction', () => api.editCompaction('/p', 's1', 'cp1', 'new text'), 'edit_compaction', { project: '/p', sessionId: 's1', id: 'cp1', summary: 'new text' }],
    ['projectInstructions', () => api.projectInstructions('/p'), 'project_instructions', { project: '/p' }],
  ] as const)('%s calls %s with its arguments', async (_, run, command, args) => {
    await run();
    expect(invoke).toHaveBeenCalledWith(command, args);
  });

  it('turns a refusal into an AppError', async () => {
    invoke.mockRejectedValue({ code: 'busy', message: 'a run is going' });
    await expect(api.undoRewind('/p', 's1')).rejects.toEqual({ code: 'busy', message: 'a run is going' });
  });
});

describe('notification clicks', () => {
  it('asks for each click in turn, after the one it last had, until the window closes', async () => {
    const asked: unknown[] = [];
    const clicks = [{ seq: 3, call_id: 'call-7' }, { seq: 4, call_id: '' }, null];
    invoke.mockImplementation(async (_command, args) => {
      asked.push(args);
      return clicks.shift();
    });
    const shown: string[] = [];
    api.onNotificationClick((id) => shown.push(id));
    await vi.waitFor(() => expect(asked).toHaveLength(3));
    expect(invoke).toHaveBeenCalledWith('next_notification_click', { after: null });
    expect(asked).toEqual([{ after: null }, { after: 3 }, { after: 4 }]);
    expect(shown).toEqual(['call-7', '']);
  });

  it('stops asking once stopped, and after a failure', async () => {
    let release: (click: unknown) => void = () => {};
    invoke.mockImplementationOnce(() => new Promise((resolve) => (release = resolve)));
    const shown: string[] = [];
    const stop = api.onNotificationClick((id) => shown.push(id));
    stop();
    release({ seq: 1, call_id: 'late' });
    await new Promise((r) => setTimeout(r, 0));
    expect(shown).toEqual([]);
    expect(invoke).toHaveBeenCalledTimes(1);

    invoke.mockReset();
    invoke.mockRejectedValue({ code: 'internal', message: 'gone' });
    api.onNotificationClick((id) => shown.push(id));
    await new Promise((r) => setTimeout(r, 0));
    expect(invoke).toHaveBeenCalledTimes(1);
  });
});

describe('feeds: the events of a run, the changes of a workspace', () => {
  /** `invoke` answering `command` from `answers` in turn, recording every call. */
  function shell(answers: Record<string, unknown[]>) {
    const calls: [string, unknown][] = [];
    invoke.mockImplementation(async (command, args) => {
      calls.push([command, args]);
      const queue = answers[command];
      if (!queue?.length) throw { code: 'internal', message: `unexpected ${command}` };
      return queue.shift();
    });
    return calls;
  }

  it('sendPrompt resolves with the session, then hands over every batch in order until done', async () => {
    const text = (t: string) => ({ type: 'text_delta', text: t });
    const calls = shell({
      send_prompt: [{ session_id: 's9', feed: 4 }],
      next_run_events: [
        { items: [text('a'), text('b')], done: false },
        { items: [], done: false },
        { items: [text('c')], done: true },
      ],
    });
    const got: unknown[] = [];
    await expect(api.sendPrompt('/p', null, 'hi', (e) => got.push(e))).resolves.toBe('s9');
    await vi.waitFor(() => expect(got).toHaveLength(3));
    expect(got).toEqual([text('a'), text('b'), text('c')]);
    expect(calls).toEqual([
      ['send_prompt', { project: '/p', sessionId: null, prompt: { text: 'hi', attachments: [] }, worktree: null }],
      ['next_run_events', { feed: 4 }],
      ['next_run_events', { feed: 4 }],
      ['next_run_events', { feed: 4 }],
    ]);
    // Done: it asked no more.
    await new Promise((r) => setTimeout(r, 0));
    expect(calls).toHaveLength(4);
  });

  it('a refused prompt rejects with the AppError and asks for no events', async () => {
    const calls = shell({});
    invoke.mockRejectedValueOnce({ code: 'busy', message: 'a run is going' });
    await expect(api.sendPrompt('/p', 's1', 'hi', () => {})).rejects.toEqual({
      code: 'busy',
      message: 'a run is going',
    });
    expect(calls).toEqual([]);
  });

  it('watchWorkspace follows its feed, and a failed ask ends it without spinning', async () => {
    const calls = shell({
      watch_workspace: [7],
      next_workspace_changes: [{ items: [{ paths: ['a.txt'] }], done: false }],
    });
    const got: unknown[] = [];
    await api.watchWorkspace('/p', (c) => got.push(c));
    await vi.waitFor(() => expect(calls).toHaveLength(3));
    expect(got).toEqual([{ paths: ['a.txt'] }]);
    expect(calls[0]).toEqual(['watch_workspace', { project: '/p' }]);
    expect(calls[2]).toEqual(['next_workspace_changes', { feed: 7 }]);
    await new Promise((r) => setTimeout(r, 0));
    expect(calls).toHaveLength(3);
  });
});
