import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { tick } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { AgentEvent } from '../lib/bindings';
import { SessionController } from '../lib/session.svelte';
import { call, usage } from '../test/events';
import { emptyTranscript, reduceAll, type TranscriptAction } from '../lib/transcript';
import TranscriptPanel from './TranscriptPanel.svelte';
import tails from '../test/generated/tails.json';
import { project, sandbox } from '../test/project';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

let emit: (e: AgentEvent) => void = () => {};
beforeEach(() => {
  vi.resetAllMocks();
  api.sendPrompt.mockImplementation(async (_p, _s, _t, onEvent) => {
    emit = onEvent;
    return 's1';
  });
  api.approve.mockResolvedValue(null);
  api.stopRun.mockResolvedValue(null);
});

async function startRun() {
  const session = new SessionController('/p');
  render(TranscriptPanel, { props: { session } });
  const input = screen.getByTestId('prompt-input');
  await fireEvent.input(input, { target: { value: 'list files' } });
  await fireEvent.keyDown(input, { key: 'Enter', ctrlKey: true });
  await vi.waitFor(() => expect(api.sendPrompt).toHaveBeenCalled());
  return session;
}

afterEach(() => vi.unstubAllGlobals());

/** A stand-in for ResizeObserver (jsdom has none): the returned function plays a layout that
 * changed the size of what the panel observes. */
function resizes(): () => void {
  const observers: (() => void)[] = [];
  vi.stubGlobal(
    'ResizeObserver',
    class {
      constructor(callback: () => void) {
        observers.push(callback);
      }
      observe() {}
      disconnect() {}
    },
  );
  return () => observers.forEach((o) => o());
}

describe('TranscriptPanel', () => {
  it('says where the agent works before the first prompt', () => {
    const { unmount } = render(TranscriptPanel, { props: { session: new SessionController('/p'), info: project() } });
    expect(screen.getByTestId('transcript-empty')).toHaveTextContent("own folder, .agent-workspace, not in the project's files");
    unmount();
    const whole = project({ sandbox: { ...sandbox, workspace_mode: 'project' } });
    render(TranscriptPanel, { props: { session: new SessionController('/p'), info: whole } });
    expect(screen.getByTestId('transcript-empty')).toHaveTextContent('Ask the agent about this project.');
  });

  it('follows what grows while the user is at the bottom, and not once they scrolled up', async () => {
    const resized = resizes();
    const session = new SessionController('/p');
    render(TranscriptPanel, { props: { session } });
    const scroller = document.querySelector<HTMLElement>('.scroll')!;
    let [top, height] = [0, 1000];
    Object.defineProperties(scroller, {
      scrollHeight: { get: () => height },
      clientHeight: { get: () => 800 },
      scrollTop: { get: () => top, set: (v: number) => (top = v) },
    });
    // An answer grew after the transcript changed (it is shown a frame later): followed.
    height = 1400;
    resized();
    expect(top).toBe(1400);
    // The user scrolls up to read: growth no longer moves the view.
    top = 300;
    await fireEvent.scroll(scroller);
    height = 1800;
    resized();
    expect(top).toBe(300);
    // Back at the bottom: followed again.
    top = 1000;
    await fireEvent.scroll(scroller);
    height = 2200;
    resized();
    expect(top).toBe(2200);
  });

  it('keeps following when its own jump to the bottom is reported after the answer grew again', async () => {
    const resized = resizes();
    const session = new SessionController('/p');
    render(TranscriptPanel, { props: { session } });
    const scroller = document.querySelector<HTMLElement>('.scroll')!;
    let [top, height] = [0, 1000];
    // As in a browser: the view cannot go past the end of the content.
    Object.defineProperties(scroller, {
      scrollHeight: { get: () => height },
      clientHeight: { get: () => 800 },
      scrollTop: { get: () => top, set: (v: number) => (top = Math.max(0, Math.min(v, height - 800))) },
    });
    height = 1400;
    resized();
    expect(top).toBe(600);
    // A paragraph lands before the scroll event of that jump: 400 px below the view then.
    height = 1800;
    await fireEvent.scroll(scroller);
    resized();
    expect(top).toBe(1000);
    // A reader who moves up is still left alone.
    top = 700;
    await fireEvent.scroll(scroller);
    height = 2200;
    resized();
    expect(top).toBe(700);
  });

  it('renders a long session\'s last turns, and more when the user scrolls up to the button', async () => {
    const resized = resizes();
    let seen: (entries: { isIntersecting: boolean }[]) => void = () => {};
    vi.stubGlobal(
      'IntersectionObserver',
      class {
        constructor(callback: typeof seen) {
          seen = callback;
        }
        observe() {}
        disconnect() {}
      },
    );
    const session = new SessionController('/p');
    session.transcript = reduceAll(emptyTranscript(), [
      { type: 'user_prompt', text: 'go' },
      { type: 'run_started', agent: 'main', model: 'm', max_turns: 100 },
      ...Array.from({ length: 25 }, (_, i): TranscriptAction[] => [
        { type: 'turn_started', turn: i + 1 },
        { type: 'text_delta', text: `answer ${i + 1}` },
      ]).flat(),
    ]);
    const { container } = render(TranscriptPanel, { props: { session } });
    const scroller = container.querySelector<HTMLElement>('.scroll')!;
    let top = 0;
    Object.defineProperties(scroller, {
      scrollHeight: { get: () => 5000 },
      clientHeight: { get: () => 800 },
      scrollTop: { get: () => top, set: (v: number) => (top = v) },
    });
    const answers = () => screen.getAllByTestId('message-assistant').length;
    expect(answers()).toBe(10);
    // Opening lands at the bottom: the button in view then loads nothing.
    resized();
    expect(top).toBe(5000);
    seen([{ isIntersecting: true }]);
    await tick();
    expect(answers()).toBe(10);
    top = 100;
    await fireEvent.scroll(scroller);
    seen([{ isIntersecting: true }]);
    await vi.waitFor(() => expect(answers()).toBe(20));
    expect(top).toBe(100);
    await fireEvent.click(screen.getByTestId('show-earlier'));
    await vi.waitFor(() => expect(answers()).toBe(25));
    expect(screen.queryByTestId('show-earlier')).toBeNull();
  });

  it('opens a long session on its last turns and loads the rest when asked for more', async () => {
    // The Rust side's cut of a 31-turn run: its last 10 turns, 21 left out.
    const [long] = (tails as unknown as { cases: { whole: object; part: object }[] }).cases;
    const header = { id: 's1', title: 'walk', created: '', updated: '', project: '/p' };
    const answer = (part: object) => ({ header, warnings: [], ...part }) as never;
    api.loadSession.mockImplementation(async (_p, _s, tail) => answer(tail ? long!.part : long!.whole));
    const session = new SessionController('/p');
    render(TranscriptPanel, { props: { session } });
    await session.open('s1');
    await tick();
    const answers = () => screen.getAllByTestId('message-assistant').map((m) => m.textContent?.trim());
    expect(answers()).toHaveLength(10);
    expect(answers()[0]).toBe('turn 22');
    expect(screen.getByTestId('show-earlier').textContent).toContain('21 more turns');
    await fireEvent.click(screen.getByTestId('show-earlier'));
    await vi.waitFor(() => expect(answers()).toHaveLength(20));
    expect(api.loadSession).toHaveBeenLastCalledWith('/p', 's1');
    expect(answers()[0]).toBe('turn 12');
    expect(screen.getByTestId('show-earlier').textContent).toContain('11 more turns');
  });

  it('opens a search hit whole and brings its turn into view', async () => {
    const [long] = (tails as unknown as { cases: { whole: object; part: object }[] }).cases;
    const header = { id: 's1', title: 'walk', created: '', updated: '', project: '/p' };
    api.loadSession.mockResolvedValue({ header, warnings: [], ...long!.whole } as never);
    const scrolled: Element[] = [];
    // jsdom has no scrollIntoView: this test's own, gone after it.
    Element.prototype.scrollIntoView = function (this: Element) {
      scrolled.push(this);
    };
    onTestFinished(() => {
      delete (Element.prototype as Partial<Element>).scrollIntoView;
    });
    const session = new SessionController('/p');
    render(TranscriptPanel, { props: { session } });
    // Message 9: the prompt, then a reply and its results per turn: turn 5's reply.
    await session.open('s1', 9);
    expect(api.loadSession).toHaveBeenCalledWith('/p', 's1', undefined);
    await vi.waitFor(() => expect(scrolled).toHaveLength(1));
    const turn = scrolled[0] as HTMLElement;
    expect(turn.dataset.turn).toBe('5');
    expect(turn.textContent).toContain('turn 5');
    expect(document.activeElement).toBe(turn);
    expect(turn.classList.contains('found')).toBe(true);
    await vi.waitFor(() => expect(turn.classList.contains('found')).toBe(false), { timeout: 4000 });
    // Every turn from there on is rendered.
    expect(screen.getAllByTestId('message-assistant')).toHaveLength(27);
    // Brought into view once: the panel shown again (another tab, then back) stays put.
    expect(session.found).toBeNull();
    cleanup();
    render(TranscriptPanel, { props: { session } });
    await new Promise((r) => setTimeout(r, 50));
    expect(scrolled).toHaveLength(1);
  });

  it('sends with Ctrl+Enter, shows the prompt, and locks send while running', async () => {
    await startRun();
    expect(api.sendPrompt).toHaveBeenCalledWith('/p', null, 'list files', expect.any(Function));
    expect(await screen.findByTestId('message-user')).toHaveTextContent('list files');
    expect(screen.getByTestId('send-button')).toBeDisabled();
    expect(screen.getByTestId('stop-button')).toBeEnabled();
    expect(screen.getByTestId('prompt-input')).toHaveValue('');
  });

  it('answers an approval of the live run and stops it', async () => {
    await startRun();
    const bash = call('c1', 'bash', { command: 'ls' });
    emit({ type: 'run_started', agent: 'main', model: 'm', max_turns: 100 });
    emit({ type: 'turn_started', turn: 1 });
    emit({ type: 'tool_call_started', summary: '', call: bash });
    emit({ type: 'approval_requested', summary: '', request_id: 'approval-1', call: bash });
    await fireEvent.click(await screen.findByTestId('approve-deny'));
    expect(api.approve).toHaveBeenCalledWith('/p', 's1', 'approval-1', 'deny');

    await fireEvent.click(screen.getByTestId('stop-button'));
    expect(api.stopRun).toHaveBeenCalledWith('/p', 's1');
    emit({ type: 'run_finished', exit: 'aborted', turns: 1, usage: usage(3, 4) });
    expect(await screen.findByTestId('run-banner')).toHaveAttribute('data-exit', 'aborted');
    expect(screen.getByTestId('usage-total')).toHaveTextContent('3 in · 4 out');
    expect(screen.getByTestId('stop-button')).toBeDisabled();
  });

  it('shows a failed send next to the composer', async () => {
    api.sendPrompt.mockRejectedValue({ code: 'provider', message: 'No API key for anthropic.' });
    await startRun();
    expect(await screen.findByTestId('command-error')).toHaveTextContent('No API key for anthropic.');
    expect(screen.getByTestId('prompt-input')).toHaveValue('list files');
  });
});
