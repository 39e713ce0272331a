import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { WorktreeCreated } from '../lib/bindings';
import { SessionController } from '../lib/session.svelte';
import TranscriptPanel from '../transcript/TranscriptPanel.svelte';
import WorktreePanel from './WorktreePanel.svelte';
import { changes, made, worktree } from '../test/worktrees';
import { project, settings } from '../test/project';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

beforeEach(() => {
  vi.resetAllMocks();
  api.worktrees.mockResolvedValue([worktree(), worktree({ name: 'other', branch: 'paddock/other', session: 's9' })]);
  api.worktreeChanges.mockResolvedValue(changes());
  api.projectBranches.mockResolvedValue({ current: 'main', branches: ['dev', 'main'] });
});

/** The panel for session `s1`, once it found the session's worktree. */
async function openPanel(id = 's1') {
  const session = new SessionController('/p');
  session.sessionId = id;
  render(WorktreePanel, { props: { session } });
  if (id === 's1') await screen.findByTestId('worktree-panel');
  return session;
}

const panel = () => screen.getByTestId('worktree-panel');
const mergeInto = () => screen.getByTestId<HTMLSelectElement>('worktree-merge-into');

describe('WorktreePanel', () => {
  it('shows the branch, its base and state, and what it holds', async () => {
    await openPanel();
    expect(screen.getByTestId('worktree-branch').textContent).toBe('paddock/fix-login');
    expect(panel()).toHaveAccessibleName('paddock/fix-login');
    expect(screen.getByTestId('worktree-base')).toHaveTextContent('from main at 0123456789');
    expect(screen.getByTestId('worktree-state')).toHaveTextContent('Active');
    await vi.waitFor(() => expect(screen.getAllByTestId('worktree-file')).toHaveLength(2));
    expect(api.worktreeChanges).toHaveBeenCalledWith('/p', 'fix-login');
    const toggle = screen.getByTestId('worktree-changes');
    expect(toggle).toHaveTextContent('2 commits, 1 file not committed');
    expect(screen.getAllByTestId('worktree-file').map((f) => f.textContent?.trim())).toEqual([
      'src/auth.ts',
      'src/login.ts (not committed)',
    ]);
    // The list folds away.
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    await fireEvent.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(document.getElementById('worktree-files')).not.toBeVisible();
    // The merge goes to the project's current branch unless the user picks another.
    await vi.waitFor(() => expect(mergeInto().value).toBe('main'));
    expect([...mergeInto().options].map((o) => o.value)).toEqual(['dev', 'main']);
    expect(screen.getByLabelText('Commit message')).toHaveAttribute('placeholder', "The session's title");
  });

  it('shows nothing for a session in the project folder, and reads the changes again after a run', async () => {
    const session = await openPanel('s2');
    await vi.waitFor(() => expect(api.worktrees).toHaveBeenCalled());
    expect(screen.queryByTestId('worktree-panel')).toBeNull();
    session.sessionId = 's1';
    await screen.findByTestId('worktree-panel');
    await vi.waitFor(() => expect(api.worktreeChanges).toHaveBeenCalledTimes(1));
    api.worktreeChanges.mockResolvedValue(changes({ commits: 3 }));
    session.runsEnded++;
    await vi.waitFor(() => expect(screen.getByTestId('worktree-changes')).toHaveTextContent('3 commits'));
  });

  it('merges: a fast-forward says where the branch went', async () => {
    api.landWorktree.mockResolvedValue({
      worktree: worktree({ state: 'merged', into: 'main', commit: '1a2b3c4d5e6f7a8b' } as never),
      merge: { outcome: 'fast_forward', into: 'main', commit: '1a2b3c4d5e6f7a8b' },
    });
    const session = await openPanel();
    await vi.waitFor(() => expect(mergeInto().value).toBe('main'));
    const versions = session.listVersion;
    api.worktrees.mockResolvedValue([worktree({ state: 'merged', into: 'main', commit: '1a2b3c4d5e6f7a8b' } as never)]);
    await fireEvent.click(screen.getByTestId('worktree-merge'));
    expect(api.landWorktree).toHaveBeenCalledWith('/p', 'fix-login', { action: 'merge', into: 'main', message: null, accept_trust_changes: false });
    const result = await screen.findByTestId('worktree-result');
    expect(result).toHaveRole('status');
    expect(result.textContent).toBe('main fast-forwarded to 1a2b3c4d5e');
    expect(screen.getByTestId('worktree-state')).toHaveTextContent('Merged into main (1a2b3c4d5e)');
    expect(session.listVersion).toBe(versions + 1);
    expect(screen.queryByTestId('worktree-conflicts')).toBeNull();
  });

  it("opens a file's diff against the base when its row is clicked", async () => {
    api.worktreeDiff.mockResolvedValue({
      path: 'src/login.ts',
      kind: 'modified',
      added: 1,
      removed: 1,
      diff: {
        kind: 'text',
        hunks: [
          {
            old_start: 1,
            old_lines: 1,
            new_start: 1,
            new_lines: 1,
            lines: [
              { op: 'removed', text: 'old line' },
              { op: 'added', text: 'new line' },
            ],
          },
        ],
      },
    } as never);
    await openPanel();
    const row = (await screen.findAllByTestId('worktree-file'))[1]!;
    await fireEvent.click(within(row).getByRole('button'));
    expect(api.worktreeDiff).toHaveBeenCalledWith('/p', 'fix-login', 'src/login.ts');
    expect(await within(row).findByTestId('worktree-diff')).toHaveTextContent('new line');
    expect(within(row).getByRole('button')).toHaveAttribute('aria-expanded', 'true');
    await fireEvent.click(within(row).getByRole('button'));
    expect(within(row).queryByTestId('worktree-diff')).toBeNull();
  });

  it('writes a plain copy back into the folder: no branch to pick', async () => {
    api.worktrees.mockResolvedValue([worktree({ plain_copy: true })]);
    api.projectBranches.mockRejectedValue({ code: 'invalid', message: 'not in a git repository' });
    api.landWorktree.mockResolvedValue({
      worktree: worktree({ plain_copy: true, state: 'merged', into: 'the project folder', commit: 'abcdef1234567' } as never),
      merge: { outcome: 'merged', into: 'the project folder', commit: 'abcdef1234567' },
    });
    await openPanel();
    expect(screen.queryByTestId('worktree-merge-into')).toBeNull();
    expect(api.projectBranches).not.toHaveBeenCalled();
    await fireEvent.click(screen.getByText('Write back into the folder'));
    expect(api.landWorktree).toHaveBeenCalledWith('/p', 'fix-login', { action: 'merge', into: null, message: null, accept_trust_changes: false });
    expect(await screen.findByTestId('worktree-result')).toHaveTextContent('the project folder');
    expect(screen.queryByTestId('worktree-error')).toBeNull();
  });

  it('merges into the branch picked, with the message given', async () => {
    api.landWorktree.mockResolvedValue({
      worktree: worktree(),
      merge: { outcome: 'merged', into: 'dev', commit: 'fedcba9876543210' },
    });
    await openPanel();
    await vi.waitFor(() => expect(mergeInto().value).toBe('main'));
    await fireEvent.change(mergeInto(), { target: { value: 'dev' } });
    await fireEvent.input(screen.getByTestId('worktree-commit-message'), { target: { value: 'Login fixed' } });
    await fireEvent.click(screen.getByTestId('worktree-merge'));
    expect(api.landWorktree).toHaveBeenCalledWith('/p', 'fix-login', { action: 'merge', into: 'dev', message: 'Login fixed', accept_trust_changes: false });
    expect((await screen.findByTestId('worktree-result')).textContent).toBe('Merged into dev as fedcba9876');
  });

  it('lists the trust-covered files a merge would land, and lands them only when accepted', async () => {
    const refusal =
      "the worktree 'fix-login' changes 1 file(s) that folder trust covers; nothing was landed:\n  .paddock/settings.json (Paddock's folder settings, hooks and saved prompts)";
    api.landWorktree.mockRejectedValueOnce({ code: 'untrusted', message: refusal });
    api.landWorktree.mockResolvedValueOnce({
      worktree: worktree({ state: 'merged', into: 'main', commit: '1a2b3c4d5e6f7a8b' } as never),
      merge: { outcome: 'fast_forward', into: 'main', commit: '1a2b3c4d5e6f7a8b' },
    });
    await openPanel();
    await vi.waitFor(() => expect(mergeInto().value).toBe('main'));
    await fireEvent.click(screen.getByTestId('worktree-merge'));
    const card = await screen.findByTestId('worktree-trust-changes');
    expect(card).toHaveRole('alert');
    expect(card).toHaveTextContent('.paddock/settings.json');
    expect(card).toHaveTextContent('asks for your trust again');
    // Not shown as an ordinary error, and nothing landed yet.
    expect(screen.queryByTestId('worktree-error')).toBeNull();
    expect(screen.queryByTestId('worktree-result')).toBeNull();
    expect(api.landWorktree).toHaveBeenCalledTimes(1);
    await fireEvent.click(within(card).getByTestId('worktree-trust-accept'));
    expect(api.landWorktree).toHaveBeenLastCalledWith('/p', 'fix-login', {
      action: 'merge',
      into: 'main',
      message: null,
      accept_trust_changes: true,
    });
    expect((await screen.findByTestId('worktree-result')).textContent).toBe('main fast-forwarded to 1a2b3c4d5e');
    expect(screen.queryByTestId('worktree-trust-changes')).toBeNull();
  });

  it('keeps nothing when the trust card is cancelled', async () => {
    api.landWorktree.mockRejectedValueOnce({ code: 'untrusted', message: 'changes 1 file(s) that folder trust covers' });
    await openPanel();
    await fireEvent.click(screen.getByTestId('worktree-keep'));
    const card = await screen.findByTestId('worktree-trust-changes');
    await fireEvent.click(within(card).getByTestId('worktree-trust-cancel'));
    expect(screen.queryByTestId('worktree-trust-changes')).toBeNull();
    expect(api.landWorktree).toHaveBeenCalledTimes(1);
    expect(api.landWorktree).toHaveBeenLastCalledWith('/p', 'fix-login', { action: 'keep', accept_trust_changes: false });
  });

  it('lists the conflicts of a merge and changes nothing else', async () => {
    api.landWorktree.mockResolvedValue({
      worktree: worktree(),
      merge: { outcome: 'conflicts', into: 'main', files: ['src/login.ts', 'README.md'] },
    });
    const session = await openPanel();
    await vi.waitFor(() => expect(mergeInto().value).toBe('main'));
    const versions = session.listVersion;
    await fireEvent.click(screen.getByTestId('worktree-merge'));
    const alert = await screen.findByTestId('worktree-conflicts');
    expect(alert).toHaveRole('alert');
    expect(within(alert).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['src/login.ts', 'README.md']);
    expect(alert).toHaveTextContent('nothing was changed');
    expect(alert).toHaveTextContent('git fetch origin && git merge origin/main');
    expect(screen.queryByTestId('worktree-result')).toBeNull();
    expect(screen.getByTestId('worktree-state')).toHaveTextContent('Active');
    expect(session.listVersion).toBe(versions);
    expect(api.landWorktree).toHaveBeenCalledTimes(1);
  });

  it('commits what is left, and keeps the branch only', async () => {
    api.landWorktree.mockResolvedValueOnce({ worktree: worktree(), commit: '99887766554433' });
    await openPanel();
    await fireEvent.click(screen.getByTestId('worktree-commit'));
    expect(api.landWorktree).toHaveBeenCalledWith('/p', 'fix-login', { action: 'commit', message: null });
    expect((await screen.findByTestId('worktree-result')).textContent).toBe('Committed 9988776655');

    api.landWorktree.mockResolvedValueOnce({ worktree: worktree({ state: 'kept' }) });
    // The list read again after the landing says the same.
    api.worktrees.mockResolvedValue([worktree({ state: 'kept' })]);
    await fireEvent.click(screen.getByTestId('worktree-keep'));
    expect(api.landWorktree).toHaveBeenLastCalledWith('/p', 'fix-login', { action: 'keep', accept_trust_changes: false });
    await vi.waitFor(() => expect(screen.getByTestId('worktree-result')).toHaveTextContent('Kept paddock/fix-login'));
    // No checkout left: only discarding the branch remains.
    expect(screen.getByTestId('worktree-merge')).toBeDisabled();
    expect(screen.getByTestId('worktree-commit')).toBeDisabled();
    expect(screen.getByTestId('worktree-discard')).toBeEnabled();
  });

  it('commits with the message the model proposes, as edited', async () => {
    api.proposeCommitMessage.mockResolvedValue('Fix the login\n\nThe token was read too early.');
    api.landWorktree.mockResolvedValue({ worktree: worktree(), commit: '5566778899aabb' });
    await openPanel();
    const propose = screen.getByTestId('worktree-commit-propose');
    await vi.waitFor(() => expect(propose).toBeEnabled());
    await fireEvent.click(propose);
    expect(api.proposeCommitMessage).toHaveBeenCalledWith('/p', 'fix-login');
    const box = screen.getByTestId<HTMLTextAreaElement>('worktree-commit-message');
    await vi.waitFor(() => expect(box.value).toBe('Fix the login\n\nThe token was read too early.'));
    await fireEvent.input(box, { target: { value: 'Fix the login\n\nRead the token late.' } });
    await fireEvent.click(screen.getByTestId('worktree-commit'));
    expect(api.landWorktree).toHaveBeenCalledWith('/p', 'fix-login', { action: 'commit', message: 'Fix the login\n\nRead the token late.' });
    await vi.waitFor(() => expect(box.value).toBe(''));
  });

  it('offers no proposal when everything is committed', async () => {
    api.worktreeChanges.mockResolvedValue(changes({ uncommitted: [] }));
    await openPanel();
    await vi.waitFor(() => expect(screen.getByTestId('worktree-changes')).toHaveTextContent('0 files not committed'));
    expect(screen.getByTestId('worktree-commit-propose')).toBeDisabled();
  });

  it('asks before discarding, naming what is lost, and only then discards', async () => {
    api.landWorktree.mockResolvedValue({ lost: changes() });
    const session = await openPanel();
    await vi.waitFor(() => expect(api.worktreeChanges).toHaveBeenCalledTimes(1));
    await fireEvent.click(screen.getByTestId('worktree-discard'));
    const dialog = await screen.findByTestId('worktree-discard-dialog');
    expect(api.worktreeChanges).toHaveBeenCalledTimes(2);
    expect(dialog).toHaveRole('alertdialog');
    expect(dialog).toHaveAccessibleName(
      'Discard paddock/fix-login? Its checkout and its branch are removed: 2 commits not merged and 1 file not committed (listed) are lost.',
    );
    expect(within(dialog).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['src/login.ts']);
    expect(document.activeElement).toBe(screen.getByTestId('worktree-discard-cancel'));
    expect(api.landWorktree).not.toHaveBeenCalled();

    await fireEvent.click(screen.getByTestId('worktree-discard-cancel'));
    expect(screen.queryByTestId('worktree-discard-dialog')).toBeNull();
    expect(api.landWorktree).not.toHaveBeenCalled();

    await fireEvent.click(screen.getByTestId('worktree-discard'));
    await fireEvent.click(await screen.findByTestId('worktree-discard-confirm'));
    expect(api.landWorktree).toHaveBeenCalledWith('/p', 'fix-login', { action: 'discard' });
    expect(api.landWorktree).toHaveBeenCalledTimes(1);
    api.worktrees.mockResolvedValue([]);
    await vi.waitFor(() => expect(screen.queryByTestId('worktree-panel')).toBeNull());
    expect(session.listVersion).toBeGreaterThan(0);
  });

  it('says only the files not committed are lost with a merged worktree', async () => {
    api.worktrees.mockResolvedValue([worktree({ state: 'merged', into: 'main', commit: 'abc' } as never)]);
    api.worktreeChanges.mockResolvedValue(changes({ commits: 2, uncommitted: ['a.txt'] }));
    await openPanel();
    await fireEvent.click(screen.getByTestId('worktree-discard'));
    const dialog = await screen.findByTestId('worktree-discard-dialog');
    expect(dialog).toHaveTextContent('1 file not committed (listed) is lost.');
    expect(dialog).not.toHaveTextContent(/commits? not merged/);
  });

  it('waits for the run to end before landing, and shows why a landing was refused', async () => {
    const session = await openPanel();
    session.running = true;
    for (const id of ['worktree-commit', 'worktree-merge', 'worktree-keep', 'worktree-discard']) {
      await vi.waitFor(() => expect(screen.getByTestId(id)).toBeDisabled());
      expect(screen.getByTestId(id).title).toMatch(/Wait for the run to end/);
    }
    session.running = false;
    api.landWorktree.mockRejectedValue({ code: 'busy', message: 'your local changes to app.txt are in the way' });
    await vi.waitFor(() => expect(screen.getByTestId('worktree-commit')).toBeEnabled());
    await fireEvent.click(screen.getByTestId('worktree-commit'));
    expect(await screen.findByRole('alert')).toHaveTextContent('your local changes to app.txt are in the way');
  });

  it('tells what making the worktree did: files copied, the setup and its output', async () => {
    const session = new SessionController('/p');
    session.sessionId = 's1';
    session.created = { ...made, worktree: worktree() } satisfies WorktreeCreated;
    render(WorktreePanel, { props: { session } });
    const notice = await screen.findByTestId('worktree-made');
    expect(notice).toHaveTextContent('Copied in (1 file, 120 B): .env');
    expect(notice).toHaveTextContent('Not copied: config/link.json');
    expect(within(notice).getByRole('alert')).toHaveTextContent('Setup npm ci failed');
    const setup = screen.getByTestId('worktree-setup');
    expect(setup.tagName).toBe('DETAILS');
    expect(setup).toHaveTextContent('npm ERR! network');
    await fireEvent.click(screen.getByTestId('worktree-made-dismiss'));
    expect(screen.queryByTestId('worktree-made')).toBeNull();
    expect(session.created).toBeNull();
  });
});

describe('a new session in its own worktree, in the transcript panel', () => {
  it('shows a chip that goes back to a plain session, and the worktree being made', async () => {
    let done: (m: WorktreeCreated) => void = () => {};
    api.createWorktree.mockReturnValue(new Promise((resolve) => (done = resolve)));
    api.sendPrompt.mockResolvedValue('s1');
    const session = new SessionController('/p');
    const info = project({ settings: { ...settings, worktree: { setup: 'npm ci', copy: [] } } });
    render(TranscriptPanel, { props: { session, info } });
    session.newSession(true);
    const cancel = await screen.findByTestId('worktree-chip-cancel');
    expect(screen.getByTestId('worktree-chip')).toHaveTextContent('New session in its own worktree');
    await fireEvent.click(cancel);
    expect(session.inWorktree).toBe(false);
    expect(screen.queryByTestId('worktree-chip')).toBeNull();

    session.newSession(true);
    const input = await screen.findByTestId('prompt-input');
    await fireEvent.input(input, { target: { value: 'Fix the login' } });
    await fireEvent.click(screen.getByTestId('send-button'));
    const preparing = await screen.findByTestId('worktree-preparing');
    expect(preparing).toHaveRole('status');
    expect(preparing).toHaveTextContent('Making a worktree…');
    expect(preparing).toHaveTextContent('Then its setup runs in it: npm ci');
    expect(preparing).toHaveTextContent('Fix the login');
    expect(screen.queryByTestId('worktree-chip')).toBeNull();
    await fireEvent.input(input, { target: { value: 'next' } });
    expect(screen.getByTestId('send-button')).toBeDisabled();

    done({ ...made, worktree: worktree({ session: undefined }) });
    await vi.waitFor(() => expect(api.sendPrompt).toHaveBeenCalledWith('/p', null, 'Fix the login', expect.any(Function), 'fix-login'));
    await vi.waitFor(() => expect(screen.queryByTestId('worktree-preparing')).toBeNull());
    await screen.findByTestId('worktree-panel');
    expect(screen.getByTestId('worktree-made')).toBeInTheDocument();
  });
});
