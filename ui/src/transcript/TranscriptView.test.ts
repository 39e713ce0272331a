import { render, screen } from '@testing-library/svelte';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent, ExitReason } from '../lib/bindings';
import { fromStored } from '../lib/stored';
import { emptyTranscript, reduce, type TranscriptAction } from '../lib/transcript';
import { kept, usage } from '../test/events';
import { errorMessages, errorRun, prompt, toolMessages, toolRun } from '../test/sessions';
import TranscriptView from './TranscriptView.svelte';
import { markdown } from '../lib/lazy.svelte';

// Loaded on first use in the app; here up front, as in a window that has shown one.
beforeAll(async () => {
  await markdown.get();
});

const live = (actions: TranscriptAction[]) => actions.reduce(reduce, emptyTranscript());

describe('TranscriptView', () => {
  it('renders prompts, answers, cards, usage and run ends', () => {
    render(TranscriptView, { props: { transcript: live([...toolRun, ...errorRun]) } });
    expect(screen.getAllByTestId('message-user').map((e) => e.textContent?.trim())).toEqual([
      'You: Write hello.txt',
      'You: And again',
    ]);
    expect(screen.getAllByTestId('message-assistant')).toHaveLength(3);
    expect(screen.getAllByTestId('tool-card').map((c) => c.dataset.toolName)).toEqual([
      'file_write',
      'bash',
    ]);
    expect(screen.getAllByTestId('usage-turn').map((e) => e.textContent)).toEqual([
      'Turn 1 of 100 · 10 in · 5 out',
      'Turn 2 of 100 · 20 in · 3 out',
      'Turn 1 of 100 · 5 in · 1 out',
    ]);
    expect(screen.getAllByTestId('run-banner').map((e) => e.dataset.exit)).toEqual(['end_turn', 'error']);
    expect(screen.getByTestId('error-banner')).toHaveTextContent('connection dropped');
  });

  it('a stored session renders the same DOM as the live stream did', () => {
    const actions = [...toolRun, ...errorRun];
    const events = actions.filter((a): a is AgentEvent => a.type !== 'user_prompt');
    const a = render(TranscriptView, { props: { transcript: live(actions) } });
    const liveHtml = a.container.innerHTML;
    a.unmount();
    const b = render(TranscriptView, {
      props: { transcript: fromStored([...toolMessages, ...errorMessages], kept(events)) },
    });
    expect(b.container.innerHTML).toBe(liveHtml);
  });

  it.each<[ExitReason, RegExp]>([
    ['max_turns', /max turns/],
    ['budget_exceeded', /token budget/],
    ['loop_detected', /repeating itself/],
    ['aborted', /Stopped by you/],
    ['error', /error/],
  ])('shows a banner for %s', (exit, text) => {
    const t = live([
      prompt('go'),
      { type: 'run_started', agent: 'main', model: 'm', max_turns: 100 },
      { type: 'run_finished', exit, turns: 2, usage: usage(1, 2) },
    ]);
    render(TranscriptView, { props: { transcript: t } });
    const banner = screen.getByTestId('run-banner');
    expect(banner).toHaveAttribute('data-exit', exit);
    expect(banner).toHaveTextContent(text);
    expect(banner).toHaveAttribute('role', 'alert');
  });

  it('shows loop and warning notices', () => {
    const t = live([
      { type: 'run_started', agent: 'main', model: 'm', max_turns: 100 },
      { type: 'warning', message: 'bash is withheld' },
      { type: 'turn_started', turn: 1 },
      { type: 'loop_detected', kind: 'text_repetition', repetitions: 3, action: 'warned', detail: 'the same answer' },
    ]);
    render(TranscriptView, { props: { transcript: t } });
    expect(screen.getByTestId('warning-banner')).toHaveTextContent('bash is withheld');
    expect(screen.getByTestId('loop-banner')).toHaveAttribute('data-action', 'warned');
  });

  it('renders model text as sanitized Markdown', () => {
    const t = live([
      { type: 'run_started', agent: 'main', model: 'm', max_turns: 100 },
      { type: 'turn_started', turn: 1 },
      { type: 'text_delta', text: 'Hi <img src=x onerror="window.pwned=1"><script>window.pwned=1</script>' },
      { type: 'text_delta', text: ' **there**' },
    ]);
    render(TranscriptView, { props: { transcript: t } });
    const msg = screen.getByTestId('message-assistant');
    expect(msg.querySelector('strong')).toHaveTextContent('there');
    expect(msg.innerHTML).not.toMatch(/onerror|<script|<img/);
    expect((window as unknown as { pwned?: number }).pwned).toBeUndefined();
  });
});

describe('long transcripts', () => {
  const many = (turns: number) =>
    live([
      prompt('go'),
      { type: 'run_started', agent: 'main', model: 'm', max_turns: 100 },
      ...Array.from({ length: turns }, (_, i): TranscriptAction[] => [
        { type: 'turn_started', turn: i + 1 },
        { type: 'text_delta', text: `answer ${i + 1}` },
      ]).flat(),
    ]);

  it('renders the last turns and offers the earlier ones', async () => {
    let limit = 3;
    const view = render(TranscriptView, {
      props: { transcript: many(5), limit, onshowmore: () => (limit += 3) },
    });
    expect(screen.getAllByTestId('message-assistant').map((e) => e.textContent?.trim())).toEqual([
      'answer 3',
      'answer 4',
      'answer 5',
    ]);
    expect(screen.queryByTestId('message-user')).toBeNull();
    expect(screen.getByTestId('show-earlier')).toHaveTextContent('2 more turns');
    await screen.getByTestId('show-earlier').click();
    await view.rerender({ transcript: many(5), limit, onshowmore: () => {} });
    expect(screen.getAllByTestId('message-assistant')).toHaveLength(5);
    expect(screen.getByTestId('message-user')).toBeInTheDocument();
    expect(screen.queryByTestId('show-earlier')).toBeNull();
  });
});
