import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { emptyTranscript, reduceAll, type Run } from '../lib/transcript';
import { edit, editRun, summaryOf } from '../test/changes';
import RunView from './RunView.svelte';
import { SESSION_LINK_KEY, type SessionLink } from './context';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

const folder = { path: 'assets', kind: 'created' as const, added: 0, removed: 0, lines_counted: false };
const run = (): Run => {
  const r = reduceAll(emptyTranscript(), editRun(1, 'edit it', 0).actions).runs[0]!;
  return { ...r, changes: { ...r.changes!, files: [summaryOf(edit), folder] } };
};

function show(r: Run, link: Partial<SessionLink> | null = {}) {
  const full: SessionLink | null = link && {
    project: '/p',
    sessionId: 's1',
    running: false,
    rewind: vi.fn(),
    undo: vi.fn(),
    undoCompaction: vi.fn(),
    editCompaction: vi.fn(),
    continueRun: vi.fn(),
    ...link,
  };
  render(RunView, { props: { run: r, index: 0 }, context: new Map([[SESSION_LINK_KEY, () => full]]) });
  return full;
}

beforeEach(() => vi.resetAllMocks());

describe('the Changes of a run', () => {
  it('lists each file with its kind and counts', () => {
    show(run());
    const section = screen.getByTestId('run-changes');
    expect(section).toHaveTextContent('Changes · 2 files');
    const rows = within(section).getAllByTestId('run-changes-file');
    expect(rows.map((r) => r.dataset.path)).toEqual(['src/app.ts', 'assets']);
    expect(rows[0]).toHaveTextContent('src/app.ts modified +1 −1');
    expect(rows[1]).toHaveTextContent('assets created not text');
  });

  it('fetches a diff when a row is clicked, and closes it on a second click', async () => {
    api.checkpointDiff.mockResolvedValue(edit);
    show(run());
    const row = screen.getAllByTestId('run-changes-file')[0]!;
    await fireEvent.click(row);
    expect(api.checkpointDiff).toHaveBeenCalledWith('/p', 'ck1-0', 'ck1-end', 'src/app.ts');
    const section = screen.getByTestId('run-changes');
    const diff = await within(section).findByTestId('diff-view');
    expect(diff).toHaveAttribute('data-path', 'src/app.ts');
    expect(within(diff).getAllByTestId('diff-line')).toHaveLength(4);
    expect(row).toHaveAttribute('aria-expanded', 'true');
    await fireEvent.click(row);
    expect(within(section).queryByTestId('diff-view')).toBeNull();
    expect(row).toHaveAttribute('aria-expanded', 'false');
  });

  it('shows a failed fetch next to its row', async () => {
    api.checkpointDiff.mockRejectedValue({ code: 'not_found', message: 'checkpoint ck1-end is gone' });
    show(run());
    await fireEvent.click(screen.getAllByTestId('run-changes-file')[1]!);
    expect(await screen.findByTestId('run-changes-error')).toHaveTextContent('checkpoint ck1-end is gone');
    expect(api.checkpointDiff).toHaveBeenCalledWith('/p', 'ck1-0', 'ck1-end', 'assets');
    expect(within(screen.getByTestId('run-changes')).queryByTestId('diff-view')).toBeNull();
  });

  it('says so when the file did not differ after all', async () => {
    api.checkpointDiff.mockResolvedValue(null);
    show(run());
    await fireEvent.click(screen.getAllByTestId('run-changes-file')[0]!);
    expect(await screen.findByText(/No difference/)).toBeInTheDocument();
  });

  it('has no section when the run changed nothing', () => {
    show({ ...run(), changes: undefined });
    expect(screen.queryByTestId('run-changes')).toBeNull();
  });
});

describe('rewind buttons of a run', () => {
  it('offers the prompt and each recorded step, with where they go', async () => {
    const link = show(run());
    const buttons = screen.getAllByTestId('rewind-button');
    expect(buttons.map((b) => [b.dataset.prompt, b.dataset.turn, b.textContent?.trim()])).toEqual([
      ['1', '0', 'Rewind…'],
      ['1', '1', 'Rewind to before this step'],
    ]);
    await fireEvent.click(buttons[1]!);
    expect(link!.rewind).toHaveBeenCalledWith({ prompt: 1, turn: 1, checkpoint: true });
    await fireEvent.click(buttons[0]!);
    expect(link!.rewind).toHaveBeenCalledWith({ prompt: 1, turn: 0, checkpoint: true });
  });

  it('offers a conversation rewind on a prompt without a checkpoint', async () => {
    const link = show({ ...run(), checkpoint: undefined });
    await fireEvent.click(screen.getAllByTestId('rewind-button')[0]!);
    expect(link!.rewind).toHaveBeenCalledWith({ prompt: 1, turn: 0, checkpoint: false });
  });

  it.each([
    ['while a run is live', run(), { running: true }],
    ['without a session', run(), null],
    ['before the session is saved', run(), { sessionId: null }],
    ['on a rewound run', { ...run(), rewound: true }, {}],
  ])('offers none %s', (_, r, link) => {
    show(r, link);
    expect(screen.queryByTestId('rewind-button')).toBeNull();
  });

  it('dims a rewound run with one label, and a rewound step with its own', () => {
    const r = run();
    const a = render(RunView, { props: { run: { ...r, rewound: true } } });
    expect(screen.getAllByTestId('rewound-marker')).toHaveLength(1);
    expect(a.container.querySelector('.run')).toHaveClass('rewound');
    a.unmount();
    show({ ...r, turns: [r.turns[0]!, { ...r.turns[1]!, rewound: true }] });
    const marker = screen.getByTestId('rewound-marker');
    expect(marker.closest('section')).toHaveAttribute('aria-label', 'Turn 2');
    expect(marker.closest('section')).toHaveClass('rewound');
    // Turn 1 can still be rewound to; turn 2 has no checkpoint anyway.
    expect(screen.getAllByTestId('rewind-button').map((b) => b.dataset.turn)).toEqual(['0', '1']);
  });
});
