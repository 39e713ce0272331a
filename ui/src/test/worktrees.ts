// Worktrees as the shell describes them, for screen tests (issue 35).
import type { WorktreeChanges, WorktreeCreated, WorktreeInfo } from '../lib/bindings';

export const worktree = (over: Partial<WorktreeInfo> = {}): WorktreeInfo =>
  ({
    name: 'fix-login',
    branch: 'paddock/fix-login',
    base_ref: 'main',
    base_commit: '0123456789abcdef0123456789abcdef01234567',
    path: '/home/u/.local/share/paddock-worktrees/k/fix-login',
    session: 's1',
    created: '2025-01-01T10:00:00Z',
    state: 'active',
    ...over,
  }) as WorktreeInfo;

export const made: WorktreeCreated = {
  worktree: worktree({ session: undefined }),
  // 64-bit counts are typed as bigint; the shell's JSON brings numbers.
  copied: { paths: ['.env'], files: 1 as unknown as bigint, bytes: 120 as unknown as bigint, skipped: ['config/link.json'] },
  setup: { command: 'npm ci', ok: false, output: 'npm ERR! network\n[exit 1]' },
};

export const changes = (over: Partial<WorktreeChanges> = {}): WorktreeChanges => ({
  commits: 2,
  uncommitted: ['src/login.ts'],
  files: ['src/auth.ts', 'src/login.ts'],
  ...over,
});
