import { describe, expect, it } from 'vitest';
import { changesText, lossText, mergeText, sessionState, setupCommand } from './worktrees';
import { changes, worktree } from '../test/worktrees';
import { project, settings } from '../test/project';

describe('worktree words', () => {
  it('names what a discard loses', () => {
    const active = worktree();
    expect(lossText(active, changes({ commits: 1, uncommitted: ['a'] }))).toBe(
      'Discard paddock/fix-login? Its checkout and its branch are removed: 1 commit not merged and 1 file not committed (listed) are lost.',
    );
    expect(lossText(active, changes({ commits: 0, uncommitted: ['a'] }))).toMatch(/removed: 1 file not committed \(listed\) is lost\.$/);
    expect(lossText(active, changes({ commits: 3, uncommitted: [] }))).toMatch(/removed: 3 commits not merged are lost\.$/);
    expect(lossText(active, changes({ commits: 0, uncommitted: [] }))).toMatch(/removed; no work is lost\.$/);
    const merged = worktree({ state: 'merged', into: 'main', commit: 'c' } as never);
    expect(lossText(merged, changes({ commits: 4, uncommitted: [] }))).toMatch(/no work is lost\.$/);
    expect(lossText(worktree({ state: 'kept' }), null)).toBe(
      'Discard paddock/fix-login? Its branch is removed, with any commits on it that were not merged.',
    );
    expect(lossText(active, null)).toMatch(/removed, with whatever they hold\.$/);
  });

  it('says what a merge did and what a worktree holds', () => {
    expect(mergeText({ outcome: 'up_to_date', into: 'main' })).toBe('main already has everything');
    expect(mergeText({ outcome: 'fast_forward', into: 'dev', commit: '1a2b3c4d5e6f' })).toBe('dev fast-forwarded to 1a2b3c4d5e');
    expect(changesText(changes({ commits: 1, uncommitted: [] }))).toBe('1 commit, 0 files not committed');
  });

  it('puts a live run before what became of the worktree', () => {
    expect(sessionState('s1', worktree(), [], [])).toBe('done');
    expect(sessionState('s1', worktree({ state: 'kept' }), [], [])).toBe('kept');
    expect(sessionState('s1', worktree({ state: 'kept' }), ['s1'], [])).toBe('running');
    expect(sessionState('s1', worktree(), ['s1'], ['s1'])).toBe('waiting');
  });

  it('tells the setup only when it runs', () => {
    const withSetup = { ...settings, worktree: { setup: 'npm ci', copy: [] } };
    expect(setupCommand(project({ settings: withSetup }))).toBe('npm ci');
    expect(setupCommand(project())).toBeNull();
    const pending = { folder: '/p', trusted: [], declined: false, pending: [{ key: 'worktree.setup', what: 'runs npm ci', state: { state: 'new' as const } }] };
    expect(setupCommand(project({ settings: withSetup, trust: pending }))).toBeNull();
  });
});
