import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { ToolCard as Card } from '../lib/transcript';
import ToolCard from './ToolCard.svelte';
import { APPROVER_KEY, type Approver } from './context';
import { edit } from '../test/changes';
import { markdown } from '../lib/lazy.svelte';

// Loaded on first use in the app; here up front, as in a window that has shown one.
beforeAll(async () => {
  await markdown.get();
});

const base: Card = {
  id: 'c1',
  name: 'file_read',
  input: { path: 'notes/todo.md' },
  summary: 'notes/todo.md',
  parsedFromText: false,
  state: 'running',
};

function show(card: Card, approver: Approver | null = null) {
  return render(ToolCard, {
    props: { card },
    context: new Map([[APPROVER_KEY, () => approver]]),
  });
}

describe('ToolCard', () => {
  it('shows name, summary and state for the WebDriver ids', () => {
    show(base);
    const card = screen.getByTestId('tool-card');
    expect(card).toHaveAttribute('data-tool-name', 'file_read');
    expect(card).toHaveAttribute('data-state', 'running');
    expect(card.querySelector('header .summary')).toHaveTextContent('notes/todo.md');
    expect(screen.queryByTestId('tool-card-parsed-badge')).toBeNull();
    expect(screen.queryByTestId('approval-card')).toBeNull();
  });

  it('shows output, duration and the badge for calls parsed from text', () => {
    show({ ...base, state: 'ok', output: 'line 1', durationMs: 1500, parsedFromText: true });
    expect(screen.getByTestId('tool-card')).toHaveAttribute('data-state', 'ok');
    expect(screen.getByTestId('tool-card-parsed-badge')).toBeInTheDocument();
    expect(screen.getByTestId('tool-card')).toHaveTextContent('1.5 s');
    expect(screen.getByTestId('tool-card-output')).toHaveTextContent('line 1');
  });

  it('opens the output of a failed call, as text (never HTML)', () => {
    show({ ...base, state: 'error', output: '<img src=x onerror=alert(1)> denied' });
    const output = screen.getByTestId('tool-card-output');
    expect(output.closest('details')).toHaveAttribute('open');
    expect(output.querySelector('img')).toBeNull();
    expect(output).toHaveTextContent('<img src=x onerror=alert(1)> denied');
  });

  it.each([
    ['not_granted', 'not granted'],
    ['no_approver', 'denied: nobody to approve'],
    ['hook', 'denied by a hook'],
    ['user', 'denied by you'],
  ] as const)('says why a call was denied (%s) and opens its output', (reason, label) => {
    show({ ...base, state: 'denied', status: { kind: 'denied', reason }, output: 'Not run.' });
    const card = screen.getByTestId('tool-card');
    expect(card).toHaveAttribute('data-state', 'denied');
    expect(card).toHaveTextContent(label);
    expect(screen.getByTestId('tool-card-output').closest('details')).toHaveAttribute('open');
  });

  it('asks for approval while waiting and sends the decision', async () => {
    const approver = vi.fn<Approver>().mockResolvedValue(true);
    show({ ...base, name: 'bash', state: 'waiting', approval: { requestId: 'approval-3' } }, approver);
    const prompt = screen.getByTestId('approval-card');
    await fireEvent.click(within(prompt).getByTestId('approve-session'));
    expect(approver).toHaveBeenCalledWith('approval-3', 'session');
    expect(within(prompt).getByTestId('approve-once')).toBeDisabled();
  });

  it.each([
    ['approve-once', 'once'],
    ['approve-deny', 'deny'],
  ])('%s answers %s', async (id, decision) => {
    const approver = vi.fn<Approver>().mockResolvedValue(true);
    show({ ...base, state: 'waiting', approval: { requestId: 'r' } }, approver);
    await fireEvent.click(screen.getByTestId(id));
    expect(approver).toHaveBeenCalledWith('r', decision);
  });

  it('lets the user retry when the answer did not arrive', async () => {
    const approver = vi.fn<Approver>().mockResolvedValue(false);
    show({ ...base, state: 'waiting', approval: { requestId: 'r' } }, approver);
    await fireEvent.click(screen.getByTestId('approve-once'));
    await vi.waitFor(() => expect(screen.getByTestId('approve-once')).toBeEnabled());
  });

  it('shows no buttons when no run can take the answer', () => {
    show({ ...base, state: 'waiting', approval: { requestId: 'r' } }, null);
    expect(screen.getByTestId('approval-card')).toBeInTheDocument();
    expect(screen.queryByTestId('approve-once')).toBeNull();
  });

  it('shows the change a file call made, its input still behind the toggle', () => {
    show({ ...base, name: 'file_edit', state: 'ok', output: 'edited', input: { path: 'src/app.ts' }, changes: [edit] });
    const card = screen.getByTestId('tool-card');
    expect(within(card).getByTestId('diff-view')).toHaveAttribute('data-path', 'src/app.ts');
    expect(within(card).getAllByTestId('diff-line').map((l) => l.dataset.op)).toEqual(['context', 'removed', 'added', 'context']);
    const input = within(card).getByText('Input').closest('details')!;
    expect(input).not.toHaveAttribute('open');
    expect(input).toHaveTextContent('"path": "src/app.ts"');
  });

  it('a failed call without changes shows no diff', () => {
    show({ ...base, name: 'file_edit', state: 'error', output: 'old text not found' });
    expect(screen.queryByTestId('diff-view')).toBeNull();
    expect(screen.getByTestId('tool-card-output')).toHaveTextContent('old text not found');
  });

  it('shows the preview while the call waits for approval', () => {
    show({ ...base, name: 'file_edit', state: 'waiting', approval: { requestId: 'r' }, preview: { kind: 'change', change: edit } }, vi.fn<Approver>());
    expect(within(screen.getByTestId('approval-preview')).getByTestId('diff-view')).toBeInTheDocument();
  });

  it('nests a delegated run under the card', () => {
    show({
      ...base,
      name: 'delegate_to_agent',
      input: { agent: 'helper', task: 'look' },
      delegated: {
        agent: 'helper',
        depth: 1,
        transcript: {
          runs: [
            {
              agent: 'helper',
              notices: [],
              usage: { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0 },
              turns: [
                {
                  n: 1,
                  thinking: '',
                  text: 'found **it**',
                  notices: [],
                  cards: [{ id: 'h1', name: 'grep', parsedFromText: false, state: 'ok', output: 'x' }],
                },
              ],
            },
          ],
          rewinds: [],
          compactions: [],
        },
      },
    });
    const nested = screen.getByTestId('delegated-run');
    expect(nested).toHaveAttribute('data-agent', 'helper');
    expect(within(nested).getByTestId('tool-card')).toHaveAttribute('data-tool-name', 'grep');
    expect(within(nested).getByTestId('message-assistant').querySelector('strong')).toHaveTextContent('it');
  });
});
