import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import type { CallPreview } from '../lib/bindings';
import { edit, hunk, line, textChange } from '../test/changes';
import ApprovalCard from './ApprovalCard.svelte';
import type { Approver } from './context';

const npmHost: CallPreview = {
  kind: 'network',
  host: 'registry.npmjs.org',
  port: 443,
  method: 'CONNECT',
  why: 'no rule names registry.npmjs.org:443',
  rule: 'registry.npmjs.org:443',
};

const showHost = (preview: CallPreview = npmHost, approver = vi.fn<Approver>().mockResolvedValue(true)) => {
  render(ApprovalCard, {
    props: { requestId: 'r3', tool: 'bash', preview, why: 'no rule names registry.npmjs.org:443', approver },
  });
  return approver;
};

const show = (preview?: CallPreview) =>
  render(ApprovalCard, {
    props: { requestId: 'r1', tool: 'file_edit', preview, approver: vi.fn<Approver>().mockResolvedValue(true) },
  });

describe('ApprovalCard previews', () => {
  it('shows the change a call would make, every line of it', () => {
    const big = textChange('big.ts', [hunk(1, 1, Array.from({ length: 50 }, (_, i) => line('added', `x${i}`)))]);
    show({ kind: 'change', change: big });
    const preview = screen.getByTestId('approval-preview');
    expect(preview).toHaveAttribute('data-kind', 'change');
    expect(within(preview).getByTestId('diff-view')).toHaveAttribute('data-path', 'big.ts');
    expect(within(preview).getAllByTestId('diff-line')).toHaveLength(50);
    expect(within(preview).queryByTestId('diff-expand')).toBeNull();
    expect(screen.getByTestId('approve-once')).toBeEnabled();
  });

  it('warns when the call would fail', () => {
    show({ kind: 'would_fail', message: 'old text not found in src/app.ts' });
    expect(screen.getByTestId('approval-preview')).toHaveTextContent(
      'If approved, this call will fail: old text not found in src/app.ts',
    );
    expect(screen.queryByTestId('diff-view')).toBeNull();
  });

  it('shows a command with where and how it runs', () => {
    show({
      kind: 'command',
      command: 'rm -rf build && make <all>',
      cwd: '/home/u/proj/.agent-workspace',
      network: false,
      confinement: 'bubblewrap',
      timeout_secs: 120,
    });
    const preview = screen.getByTestId('approval-preview');
    expect(preview.querySelector('pre code')).toHaveTextContent('rm -rf build && make <all>');
    expect(preview).toHaveTextContent('in /home/u/proj/.agent-workspace');
    expect(preview).toHaveTextContent('network off');
    expect(preview).toHaveTextContent('bubblewrap');
    expect(preview).toHaveTextContent('timeout 120 s');
  });

  it('says network on when the command may use it', () => {
    show({ kind: 'command', command: 'curl x', cwd: '/w', network: true, confinement: 'not confined', timeout_secs: 5 });
    expect(screen.getByTestId('approval-preview')).toHaveTextContent('network on');
  });

  it('shows what a command wrote that would run outside the sandbox: keep or remove, never for the session', async () => {
    const envrc = textChange('.envrc', [hunk(1, 1, [line('added', 'use flake')])]);
    show({
      kind: 'held',
      reasons: ['.envrc: other programs run on their own, outside the sandbox'],
      changes: [envrc],
    });
    const preview = screen.getByTestId('approval-preview');
    expect(preview).toHaveAttribute('data-kind', 'held');
    expect(preview).toHaveTextContent('Programs outside the sandbox would run this file');
    expect(preview).toHaveTextContent('.envrc: other programs run on their own');
    expect(within(preview).getByTestId('diff-view')).toHaveAttribute('data-path', '.envrc');
    expect(screen.getByTestId('approve-once')).toHaveTextContent('Keep');
    expect(screen.getByTestId('approve-deny')).toHaveTextContent('Remove');
    expect(screen.queryByTestId('approve-session')).toBeNull();
    // "a" (for this session) does nothing on a held change.
    await fireEvent.keyDown(screen.getByTestId('approval-card'), { key: 'a' });
    expect(screen.getByTestId('approve-once')).toBeEnabled();
  });

  it('asks about a host a running call wants to reach: once, always for this project, or denied; never for the session', () => {
    showHost();
    const preview = screen.getByTestId('approval-preview');
    expect(preview).toHaveAttribute('data-kind', 'network');
    expect(screen.getByTestId('approval-host')).toHaveTextContent(
      'bash wants to reach registry.npmjs.org:443 (an encrypted connection)',
    );
    expect(screen.getByTestId('approve-once')).toHaveTextContent('Allow once');
    expect(screen.getByTestId('approve-always')).toHaveTextContent('Always for this project…');
    expect(screen.queryByTestId('approve-session')).toBeNull();
    expect(screen.getByTestId('approval-card')).toHaveTextContent('y allow once · a always for this project… · n deny');
    expect(screen.getByTestId('approval-card')).toHaveTextContent('bash needs your answer to go on');
  });

  it('shows no preview when the tool gave none', () => {
    show();
    expect(screen.queryByTestId('approval-preview')).toBeNull();
    expect(screen.getByTestId('approval-card')).toHaveTextContent('file_edit needs your approval');
  });

  it('keeps the preview of a change on a card that waited', () => {
    render(ApprovalCard, { props: { requestId: 'r1', tool: 'file_edit', preview: { kind: 'change', change: edit }, approver: null } });
    expect(screen.getByTestId('approval-preview')).toBeInTheDocument();
    expect(screen.queryByTestId('approve-once')).toBeNull();
  });
});

describe('ApprovalCard rules', () => {
  const withRules = (proposedRules: string[], approver = vi.fn<Approver>().mockResolvedValue(true)) => {
    render(ApprovalCard, {
      props: {
        requestId: 'r7',
        tool: 'bash',
        approver,
        why: 'no rule matches "git status && touch x" (falls back to the tool\'s grant); ask — set for this project',
        proposedRules,
      },
    });
    return approver;
  };

  it('says why it asks', () => {
    withRules([]);
    expect(screen.getByTestId('approval-why')).toHaveTextContent(
      'Asks because no rule matches "git status && touch x"',
    );
  });

  it('offers no Always allow when no rule could allow the call', () => {
    withRules([]);
    expect(screen.queryByTestId('approve-always')).toBeNull();
    expect(screen.getByTestId('approve-once')).toBeEnabled();
  });

  it('saves the proposed rules as edited, and only those', async () => {
    const approver = withRules(['git status', 'touch x']);
    await fireEvent.click(screen.getByTestId('approve-always'));
    const inputs = screen.getAllByTestId('always-rule');
    expect(inputs.map((i) => (i as HTMLInputElement).value)).toEqual(['git status', 'touch x']);
    await fireEvent.input(inputs[1]!, { target: { value: 'touch *' } });
    await fireEvent.click(screen.getByTestId('always-save'));
    expect(approver).toHaveBeenCalledWith('r7', { tool: 'bash', patterns: ['git status', 'touch *'] });
  });

  it("says an external agent's rule goes in its agents.json entry", async () => {
    const approver = vi.fn<Approver>().mockResolvedValue(true);
    render(ApprovalCard, {
      props: { requestId: 'r8', tool: 'Write', approver, proposedRules: ['Write'], rulesForAgent: 'claude' },
    });
    await fireEvent.click(screen.getByTestId('approve-always'));
    expect(screen.getByTestId('always-note')).toHaveTextContent("in claude's allow list");
    expect(screen.getByTestId('always-note')).toHaveTextContent('agents.json');
    await fireEvent.click(screen.getByTestId('always-save'));
    expect(approver).toHaveBeenCalledWith('r8', { tool: 'Write', patterns: ['Write'] });
  });

  it('drops emptied rules and cannot save none', async () => {
    const approver = withRules(['ls']);
    await fireEvent.click(screen.getByTestId('approve-always'));
    await fireEvent.input(screen.getByTestId('always-rule'), { target: { value: '  ' } });
    expect(screen.getByTestId('always-save')).toBeDisabled();
    await fireEvent.click(screen.getByTestId('always-cancel'));
    expect(screen.queryByTestId('always-form')).toBeNull();
    expect(approver).not.toHaveBeenCalled();
  });
});

describe('ApprovalCard keyboard', () => {
  const mount = (proposedRules: string[] = []) => {
    const approver = vi.fn<Approver>().mockResolvedValue(true);
    render(ApprovalCard, { props: { requestId: 'r9', tool: 'bash', approver, proposedRules } });
    return approver;
  };

  it('takes the focus and answers y / n from the keyboard', async () => {
    const approver = mount();
    const card = screen.getByTestId('approval-card');
    expect(document.activeElement).toBe(card);
    expect(card).toHaveAccessibleDescription(/y allow once · a allow for this session · n deny/);
    await fireEvent.keyDown(card, { key: 'y' });
    expect(approver).toHaveBeenCalledWith('r9', 'once');
  });

  it('leaves the focus in a field the user is typing in: the next word is no answer', async () => {
    const composer = document.createElement('textarea');
    document.body.append(composer);
    composer.focus();
    try {
      const approver = mount();
      expect(document.activeElement).toBe(composer);
      // The keys go to the field, not to the card.
      await fireEvent.keyDown(composer, { key: 'y' });
      expect(approver).not.toHaveBeenCalled();
    } finally {
      composer.remove();
    }
  });

  it('n denies; a allows for the session, or opens Always allow when a rule is proposed', async () => {
    const approver = mount();
    await fireEvent.keyDown(screen.getByTestId('approval-card'), { key: 'n' });
    expect(approver).toHaveBeenCalledWith('r9', 'deny');
  });

  it('a opens the rule editor when there is a rule to save', async () => {
    const approver = mount(['git status']);
    await fireEvent.keyDown(screen.getByTestId('approval-card'), { key: 'a' });
    expect(screen.getByTestId('always-form')).toBeInTheDocument();
    // Typing in the rule field is not an answer.
    await fireEvent.keyDown(screen.getByTestId('always-rule'), { key: 'n' });
    expect(approver).not.toHaveBeenCalled();
  });
});

describe('ApprovalCard network: Always for this project', () => {
  it('opens the host rule to edit, says where it is saved, and saves it as edited', async () => {
    const approver = showHost();
    await fireEvent.click(screen.getByTestId('approve-always'));
    const form = screen.getByRole('form', { name: 'Always allow this host' });
    expect(within(form).getByTestId('always-note')).toHaveTextContent("Saved to this project's network.allow");
    const field = within(form).getByRole('textbox', { name: 'Host rule' });
    expect(field).toHaveValue('registry.npmjs.org:443');
    expect(screen.getAllByTestId('always-rule')).toHaveLength(1);
    await fireEvent.input(field, { target: { value: ' *.npmjs.org:443 ' } });
    await fireEvent.click(screen.getByTestId('always-save'));
    expect(approver).toHaveBeenCalledWith('r3', { networkRule: '*.npmjs.org:443' });
    expect(approver).toHaveBeenCalledTimes(1);
  });

  it('saves the proposed rule unedited, and cannot save an emptied one', async () => {
    const approver = showHost();
    await fireEvent.click(screen.getByTestId('approve-always'));
    await fireEvent.input(screen.getByTestId('always-rule'), { target: { value: ' ' } });
    expect(screen.getByTestId('always-save')).toBeDisabled();
    await fireEvent.input(screen.getByTestId('always-rule'), { target: { value: 'registry.npmjs.org:443' } });
    await fireEvent.submit(screen.getByTestId('always-form'));
    expect(approver).toHaveBeenCalledWith('r3', { networkRule: 'registry.npmjs.org:443' });
  });

  it('a opens it from the keyboard; Escape and Cancel close it without an answer', async () => {
    const approver = showHost();
    const card = screen.getByTestId('approval-card');
    await fireEvent.keyDown(card, { key: 'a' });
    expect(screen.getByTestId('always-rule')).toHaveValue('registry.npmjs.org:443');
    // Typing in the rule field is not an answer.
    await fireEvent.keyDown(screen.getByTestId('always-rule'), { key: 'y' });
    await fireEvent.keyDown(screen.getByTestId('always-rule'), { key: 'Escape' });
    expect(screen.queryByTestId('always-form')).toBeNull();
    await fireEvent.click(screen.getByTestId('approve-always'));
    await fireEvent.click(screen.getByTestId('always-cancel'));
    expect(screen.queryByTestId('always-form')).toBeNull();
    expect(approver).not.toHaveBeenCalled();
  });

  it('keeps the form open to try again when the save did not go through', async () => {
    const approver = showHost(npmHost, vi.fn<Approver>().mockResolvedValue(false));
    await fireEvent.click(screen.getByTestId('approve-always'));
    await fireEvent.click(screen.getByTestId('always-save'));
    await vi.waitFor(() => expect(screen.getByTestId('always-save')).toBeEnabled());
    expect(screen.getByTestId('always-rule')).toHaveValue('registry.npmjs.org:443');
    expect(approver).toHaveBeenCalledTimes(1);
  });

  it('answers once or no from the keyboard, as buttons do', async () => {
    const approver = showHost();
    await fireEvent.keyDown(screen.getByTestId('approval-card'), { key: 'y' });
    expect(approver).toHaveBeenCalledWith('r3', 'once');
  });

  it('offers no Always when no rule was proposed (a is then no answer)', async () => {
    const approver = showHost({ ...npmHost, rule: '' });
    expect(screen.queryByTestId('approve-always')).toBeNull();
    expect(screen.getByTestId('approval-card')).toHaveTextContent('y allow once · n deny');
    await fireEvent.keyDown(screen.getByTestId('approval-card'), { key: 'a' });
    expect(screen.queryByTestId('always-form')).toBeNull();
    expect(approver).not.toHaveBeenCalled();
  });
});
