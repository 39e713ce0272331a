import { beforeEach, describe, expect, it, vi } from 'vitest';

// The shell is there, and `invoke` records what each function sends it.
vi.mock('@tauri-apps/api/core', () => ({ isTauri: () => true, invoke: vi.fn(), Channel: class {} }));
const { invoke } = vi.mocked(await import('@tauri-apps/api/core'));
const api = await import('./api');

beforeEach(() => {
  invoke.mockReset();
  invoke.mockResolvedValue(null);
});

describe('the change, rewind and compaction commands', () => {
  it.each([
    ['checkpointDiff', () => api.checkpointDiff('/p', 's1', 'a', 'b', 'src/x.ts'), 'checkpoint_diff', { project: '/p', sessionId: 's1', from: 'a', to: 'b', path: 'src/x.ts' }],
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
