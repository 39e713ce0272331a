// Sessions in their own worktree (issue 35): the words the sidebar and the worktree panel say
// about a worktree, its changes and a landing's outcome. Plain functions, no state.
import type { MergeOutcome, ProjectInfo, WorktreeChanges, WorktreeInfo } from './bindings';
import type { Transcript } from './transcript';

/** What the sidebar's badge says of a session with a worktree. */
export type SessionState = 'running' | 'waiting' | 'done' | 'merged' | 'kept' | 'discarded';

/** The status shown while a new session's worktree is being made. */
export const MAKING = 'Making a worktree…';

/** A commit as people read it (ten characters, as `git log --abbrev=10`). */
export const shortCommit = (commit: string) => commit.slice(0, 10);

const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The session's state: its live run first, else what became of its worktree. */
export function sessionState(id: string, worktree: WorktreeInfo, live: string[], waiting: string[]): SessionState {
  if (waiting.includes(id)) return 'waiting';
  if (live.includes(id)) return 'running';
  return worktree.state === 'active' ? 'done' : worktree.state;
}

/** The worktree's state in the panel's header. */
export function stateText(worktree: WorktreeInfo): string {
  switch (worktree.state) {
    case 'active':
      return 'Active';
    case 'merged':
      return `Merged into ${worktree.into} (${shortCommit(worktree.commit)})`;
    case 'kept':
      return 'Branch kept, checkout removed';
    case 'discarded':
      return 'Discarded';
  }
}

/** "2 commits, 1 file not committed". */
export const changesText = (c: WorktreeChanges) =>
  `${count(c.commits, 'commit')}, ${count(c.uncommitted.length, 'file')} not committed`;

/** A merge's outcome in a sentence (conflicts have their own alert). */
export function mergeText(outcome: MergeOutcome): string {
  switch (outcome.outcome) {
    case 'fast_forward':
      return `${outcome.into} fast-forwarded to ${shortCommit(outcome.commit)}`;
    case 'merged':
      return `Merged into ${outcome.into} as ${shortCommit(outcome.commit)}`;
    case 'up_to_date':
      return `${outcome.into} already has everything`;
    case 'conflicts':
      return `Merging into ${outcome.into} would conflict: nothing was changed`;
  }
}

/**
 * What the discard confirmation says goes with the worktree. `changes` null: they could not be
 * read (a kept worktree has no checkout left). A merged worktree's commits are in a branch
 * already: only its files not committed are lost.
 */
export function lossText(worktree: WorktreeInfo, changes: WorktreeChanges | null): string {
  const ask = `Discard ${worktree.branch}?`;
  if (worktree.state === 'kept') return `${ask} Its branch is removed, with any commits on it that were not merged.`;
  const removed = `${ask} Its checkout and its branch are removed`;
  if (!changes) return `${removed}, with whatever they hold.`;
  const commits = worktree.state === 'merged' ? 0 : changes.commits;
  const files = changes.uncommitted.length;
  const lost = [
    ...(commits ? [`${count(commits, 'commit')} not merged`] : []),
    ...(files ? [`${count(files, 'file')} not committed (listed)`] : []),
  ];
  if (lost.length === 0) return `${removed}; no work is lost.`;
  const verb = lost.length > 1 || commits + files > 1 ? 'are' : 'is';
  return `${removed}: ${lost.join(' and ')} ${verb} lost.`;
}

/** The last run of a live transcript has an approval card waiting for the user. */
export const waitsForApproval = (t: Transcript) =>
  t.runs.at(-1)?.turns.some((turn) => turn.cards.some((c) => c.state === 'waiting')) ?? false;

/** The setup command a new worktree runs, when the project's settings have one in effect. */
export function setupCommand(info: ProjectInfo | undefined): string | null {
  const setup = info?.settings?.worktree?.setup?.trim();
  if (!setup || info?.trust.pending.some((p) => p.key === 'worktree.setup')) return null;
  return setup;
}
