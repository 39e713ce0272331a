import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent } from './bindings';
import { OPEN_TURNS, SessionController } from './session.svelte';
import { call, kept } from '../test/events';
import { toolMessages, toolRun } from '../test/sessions';
import { editSession, rewound, stored } from '../test/changes';
import { compacted } from '../test/compaction';
import { made } from '../test/worktrees';

vi.mock('./api', async (original) => {
  const real = await original<typeof import('./api')>();
  return {
    toAppError: real.toAppError,
    sendPrompt: vi.fn(),
    stopRun: vi.fn(),
    approve: vi.fn(),
    alwaysAllow: vi.fn(),
    alwaysAllowHost: vi.fn(),
    loadSession: vi.fn(),
    deleteSession: vi.fn(),
    rewindSession: vi.fn(),
    undoRewind: vi.fn(),
    compactSession: vi.fn(),
    undoCompaction: vi.fn(),
    editCompaction: vi.fn(),
    createWorktree: vi.fn(),
    landWorktree: vi.fn(),
  };
});
const api = vi.mocked(await import('./api'));

const events = toolRun.filter((a): a is AgentEvent => a.type !== 'user_prompt');
let emit: (e: AgentEvent) => void = () => {};

beforeEach(() => {
  vi.resetAllMocks();
  api.sendPrompt.mockImplementation(async (_p, _s, _prompt, onEvent) => {
    emit = onEvent;
    return 'session-1';
  });
});

describe('SessionController', () => {
  it('gives a new session to the chosen external agent, and a stored one keeps its own', async () => {
    const s = new SessionController('/p');
    s.agent = 'tester';
    s.draft = 'write a.txt hi';
    expect(await s.send()).toBe(true);
    expect(api.sendPrompt).toHaveBeenCalledWith('/p', null, 'write a.txt hi', expect.any(Function), null, [], 'tester');
    events.forEach((e) => emit(e));
    await vi.waitFor(() => expect(s.running).toBe(false));
    s.draft = 'and again';
    expect(await s.send()).toBe(true);
    // The host routes a stored session to its agent: the shell names none.
    expect(api.sendPrompt).toHaveBeenLastCalledWith('/p', 'session-1', 'and again', expect.any(Function));
  });

  it('streams a run into the transcript and learns the session id', async () => {
    const s = new SessionController('/p');
    s.draft = 'Write hello.txt';
    expect(await s.send()).toBe(true);
    expect(api.sendPrompt).toHaveBeenCalledWith('/p', null, 'Write hello.txt', expect.any(Function));
    expect(s.sessionId).toBe('session-1');
    expect(s.draft).toBe('');
    expect(s.running).toBe(true);
    expect(s.liveSessions).toEqual(['session-1']);
    expect(s.transcript.runs[0]!.prompt).toBe('Write hello.txt');

    events.forEach((e) => emit(e));
    await vi.waitFor(() => expect(s.running).toBe(false));
    expect(s.liveSessions).toEqual([]);
    expect(s.transcript.runs[0]!.turns.map((t) => t.text)).toEqual(["I'll write it.", 'Done.']);
  });

  it('shows a batch of events at the start of a frame, and without frames after a while', async () => {
    // Frames run when the test says; the clock is the fake one.
    vi.useFakeTimers();
    const frames: FrameRequestCallback[] = [];
    vi.stubGlobal('requestAnimationFrame', (f: FrameRequestCallback) => frames.push(f));
    vi.stubGlobal('cancelAnimationFrame', () => {});
    const frame = () => frames.splice(0).forEach((f) => f(performance.now()));
    try {
      const s = new SessionController('/p');
      await s.send('go');
      const text = () => s.transcript.runs[0]!.turns[0]?.text;
      emit({ type: 'run_started', agent: 'main', model: 'm', max_turns: 100 });
      emit({ type: 'turn_started', turn: 1 });
      emit({ type: 'text_delta', text: 'a' });
      expect(text()).toBeUndefined();
      // The first batch goes out at the next frame.
      frame();
      expect(text()).toBe('a');
      // The next waits for a frame BATCH_MS after it: earlier frames pass it by.
      emit({ type: 'text_delta', text: 'b' });
      vi.advanceTimersByTime(10);
      frame();
      expect(text()).toBe('a');
      vi.advanceTimersByTime(15);
      frame();
      expect(text()).toBe('ab');
      // No frames (a hidden window): it still goes out, after MAX_WAIT_MS.
      emit({ type: 'text_delta', text: 'c' });
      vi.advanceTimersByTime(99);
      expect(text()).toBe('ab');
      vi.advanceTimersByTime(1);
      expect(text()).toBe('abc');
      // And the frame that was asked for then finds nothing to do.
      frame();
      expect(text()).toBe('abc');
    } finally {
      // In this order: fake timers fake frames too, and the stubs put back what they found.
      vi.unstubAllGlobals();
      vi.useRealTimers();
    }
  });

  it('continues the open session with its id', async () => {
    const s = new SessionController('/p');
    s.draft = 'one';
    await s.send();
    emit({ type: 'run_started', agent: 'main', model: 'm', max_turns: 100 });
    emit({ type: 'run_finished', exit: 'end_turn', turns: 0, usage: { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0 } });
    await vi.waitFor(() => expect(s.running).toBe(false));
    s.draft = 'two';
    await s.send();
    expect(api.sendPrompt).toHaveBeenLastCalledWith('/p', 'session-1', 'two', expect.any(Function));
    expect(s.transcript.runs.map((r) => r.prompt)).toEqual(['one', 'two']);
  });

  it('gives a queued prompt’s attachments back when it is taken back', async () => {
    const s = new SessionController('/p');
    s.draft = 'one';
    await s.send();
    s.draft = 'two';
    const attached = [{ kind: 'mention' as const, path: 'notes.md' }];
    expect(await s.send(undefined, attached)).toBe(true);
    expect(s.queued).toBe('two');
    s.unqueue();
    expect(s.draft).toBe('two');
    expect(s.returned).toEqual(attached);
  });

  it('puts the prompt back and shows the error when sending fails', async () => {
    api.sendPrompt.mockRejectedValue({ code: 'busy', message: 'A run is already going.' });
    const s = new SessionController('/p');
    s.draft = 'hello';
    const attached = [{ kind: 'mention' as const, path: 'src/a.rs' }];
    expect(await s.send(undefined, attached)).toBe(false);
    expect(s.error).toEqual({ code: 'busy', message: 'A run is already going.' });
    expect(s.draft).toBe('hello');
    expect(s.transcript.runs).toEqual([]);
    expect(s.running).toBe(false);
  });

  it('queues a prompt written during a run and sends it when the run ends', async () => {
    const s = new SessionController('/p');
    s.draft = 'go';
    await s.send();
    s.draft = 'and then this';
    await s.send();
    expect(s.queued).toBe('and then this');
    expect(s.draft).toBe('');
    expect(api.sendPrompt).toHaveBeenCalledTimes(1);
    s.draft = 'half typed';
    s.unqueue();
    expect(s.draft).toBe('and then this\nhalf typed');
    s.draft = 'queued again';
    await s.send();
    for (const e of events) emit(e);
    await vi.waitFor(() => expect(api.sendPrompt).toHaveBeenCalledTimes(2));
    expect(api.sendPrompt.mock.calls[1]?.[2]).toBe('queued again');
    expect(api.sendPrompt.mock.calls[1]?.[1]).toBe('session-1');
    expect(s.queued).toBeNull();
    expect(s.lastPrompt()).toBe('queued again');
  });

  it('approves and stops with the run session id', async () => {
    const s = new SessionController('/p');
    s.draft = 'go';
    await s.send();
    const changed = vi.fn();
    s.onSettingsChanged = changed;
    expect(await s.approve('approval-1', 'once')).toBe(true);
    expect(api.approve).toHaveBeenCalledWith('/p', 'session-1', 'approval-1', 'once');
    expect(changed).not.toHaveBeenCalled();
    expect(await s.approve('approval-2', { tool: 'bash', patterns: ['git status', 'ls *'] })).toBe(true);
    expect(api.alwaysAllow).toHaveBeenCalledWith('/p', 'session-1', 'approval-2', 'bash', ['git status', 'ls *']);
    expect(api.approve).toHaveBeenCalledTimes(1);
    expect(changed).toHaveBeenCalledTimes(1);
    await s.stop();
    expect(api.stopRun).toHaveBeenCalledWith('/p', 'session-1');
  });

  it("saves a host rule with Always for this project, then tells the screens the settings changed", async () => {
    const s = new SessionController('/p');
    s.draft = 'go';
    await s.send();
    const changed = vi.fn();
    s.onSettingsChanged = changed;
    expect(await s.approve('approval-3', { networkRule: 'registry.npmjs.org:443' })).toBe(true);
    expect(api.alwaysAllowHost).toHaveBeenCalledWith('/p', 'session-1', 'approval-3', 'registry.npmjs.org:443');
    expect(api.alwaysAllow).not.toHaveBeenCalled();
    expect(api.approve).not.toHaveBeenCalled();
    expect(changed).toHaveBeenCalledTimes(1);
  });

  it('keeps the card answerable when saving the host rule failed, saying why', async () => {
    const s = new SessionController('/p');
    s.draft = 'go';
    await s.send();
    api.alwaysAllowHost.mockRejectedValue({ code: 'invalid', message: 'network.allow[0]: not a host' });
    expect(await s.approve('approval-3', { networkRule: 'a b' })).toBe(false);
    expect(s.error?.message).toBe('network.allow[0]: not a host');
  });

  it('opens a stored session through the replay', async () => {
    api.loadSession.mockResolvedValue({
      header: { format: 1, id: 's2', project: '/p', model: 'm1', created: '', title: 'Write' },
      messages: toolMessages,
      events: kept(events),
      warnings: ['line 9 was cut short'],
    });
    const s = new SessionController('/p');
    await s.open('s2');
    expect(api.loadSession).toHaveBeenCalledWith('/p', 's2', OPEN_TURNS);
    expect(s.sessionId).toBe('s2');
    expect(s.loadWarnings).toEqual(['line 9 was cut short']);
    expect(s.transcript.runs[0]!.turns[0]!.cards).toHaveLength(2);
  });

  it("knows an external agent's session, stored or live, and a new session is Paddock's again", async () => {
    api.loadSession.mockResolvedValue({
      header: { format: 1, id: 'c1', project: '/p', provider: 'acp', model: 'claude', created: '', title: '' },
      messages: [],
      events: [],
      warnings: [],
    });
    const s = new SessionController('/p');
    await s.open('c1');
    expect(s.externalAgent).toBe('claude');
    s.newSession();
    expect(s.externalAgent).toBeNull();
    s.agent = 'gemini';
    s.draft = 'hello';
    await s.send();
    expect(api.sendPrompt.mock.calls.at(-1)?.at(-1)).toBe('gemini');
    expect(s.externalAgent).toBe('gemini');
    api.loadSession.mockResolvedValue({
      header: { format: 1, id: 'k', project: '/p', provider: 'anthropic', model: 'claude-x', created: '', title: '' },
      messages: [],
      events: [],
      warnings: [],
    });
    await s.open('k');
    expect(s.externalAgent).toBeNull();
  });

  it('keeps a run streaming while another session is open, and shows it again live', async () => {
    api.loadSession.mockResolvedValue({
      header: { format: 1, id: 'old', project: '/p', model: 'm', created: '', title: '' },
      messages: [],
      events: [],
      warnings: [],
    });
    const s = new SessionController('/p');
    s.draft = 'long job';
    await s.send();
    await s.open('old');
    expect(s.running).toBe(false);
    emit({ type: 'run_started', agent: 'main', model: 'm', max_turns: 100 });
    emit({ type: 'turn_started', turn: 1 });
    emit({ type: 'text_delta', text: 'still going' });
    await new Promise((r) => setTimeout(r, 60));
    expect(s.transcript.runs).toEqual([]);
    await s.open('session-1');
    expect(api.loadSession).toHaveBeenCalledTimes(1);
    expect(s.running).toBe(true);
    expect(s.transcript.runs[0]!.turns[0]!.text).toBe('still going');
  });

  it('starts afresh after deleting the open session', async () => {
    const s = new SessionController('/p');
    s.draft = 'x';
    await s.send();
    await s.remove('session-1');
    expect(api.deleteSession).toHaveBeenCalledWith('/p', 'session-1');
    expect(s.sessionId).toBeNull();
    expect(s.transcript.runs).toEqual([]);
  });

  it('rewinds the open session, shows what it now reads and puts the prompt back', async () => {
    const { actions, messages } = editSession('one', 'two');
    const evs = kept(actions.filter((a): a is AgentEvent => a.type !== 'user_prompt'));
    api.loadSession.mockResolvedValue(stored(messages, evs));
    api.rewindSession.mockResolvedValue({ ...stored(messages, [...evs, rewound({ prompt: 2, turn: 0 })]), warnings: ['w'] });
    const s = new SessionController('/p');
    await s.open('s1');
    const version = s.listVersion;
    await s.rewind(2, 0, 'conversation_only');
    expect(api.rewindSession).toHaveBeenCalledWith('/p', 's1', 2, 0, 'conversation_only');
    expect(s.transcript.runs.map((r) => r.rewound ?? false)).toEqual([false, true]);
    expect(s.transcript.rewinds).toHaveLength(1);
    expect(s.loadWarnings).toEqual(['w']);
    expect(s.draft).toBe('two');
    expect(s.listVersion).toBeGreaterThan(version);
    // Files only: the conversation stays, so the composer is left alone.
    s.draft = '';
    await s.rewind(1, 0, 'files_only');
    expect(s.draft).toBe('');
    // Words being written are never replaced by the old prompt.
    s.draft = 'my next question';
    await s.rewind(1, 0, 'both');
    expect(s.draft).toBe('my next question');
  });

  it('keeps each session its own unsent draft', async () => {
    api.loadSession.mockImplementation(async (_p, id) => ({
      header: { format: 1, id, project: '/p', model: 'm', created: '', title: '' },
      messages: [],
      events: [],
      warnings: [],
    }));
    const s = new SessionController('/p');
    await s.open('a');
    s.draft = 'for a';
    await s.open('b');
    expect(s.draft).toBe('');
    s.draft = 'for b';
    await s.open('a');
    expect(s.draft).toBe('for a');
    s.newSession();
    expect(s.draft).toBe('');
    s.draft = 'for a new one';
    await s.open('b');
    expect(s.draft).toBe('for b');
    s.newSession();
    expect(s.draft).toBe('for a new one');
  });

  it('rewinds nothing while a run is live, and reports a failed undo', async () => {
    const s = new SessionController('/p');
    s.draft = 'go';
    await s.send();
    await expect(s.rewind(1, 0, 'both')).rejects.toMatchObject({ code: 'busy' });
    expect(await s.undoRewind()).toBe(false);
    expect(api.rewindSession).not.toHaveBeenCalled();
    expect(api.undoRewind).not.toHaveBeenCalled();
    emit({ type: 'run_started', agent: 'main', model: 'm', max_turns: 100 });
    emit({ type: 'run_finished', exit: 'end_turn', turns: 0, usage: { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0 } });
    await vi.waitFor(() => expect(s.running).toBe(false));
    api.undoRewind.mockRejectedValue({ code: 'session', message: 'nothing to undo' });
    expect(await s.undoRewind()).toBe(false);
    expect(api.undoRewind).toHaveBeenCalledWith('/p', 'session-1');
    expect(s.error).toEqual({ code: 'session', message: 'nothing to undo' });
  });

  it('compacts, edits and undoes on the open session only, never while a run is live', async () => {
    const { actions, messages } = editSession('one');
    const base = kept(actions.filter((a): a is AgentEvent => a.type !== 'user_prompt'));
    const s = new SessionController('/p');
    await expect(s.compact()).rejects.toMatchObject({ code: 'session' });
    api.loadSession.mockResolvedValue(stored(messages, base));
    await s.open('s1');
    api.compactSession.mockResolvedValue(stored(messages, [...base, compacted({ kept_turns: 1 })]));
    const pending = s.compact();
    expect(s.compacting).toBe(true);
    await pending;
    expect(s.compacting).toBe(false);
    expect(api.compactSession).toHaveBeenCalledWith('/p', 's1');
    expect(s.transcript.compactions.map((c) => c.id)).toEqual(['cp1']);

    api.editCompaction.mockResolvedValue(stored(messages, [...base, compacted({ kept_turns: 1, summary: 'new' })]));
    await s.editCompaction('cp1', 'new');
    expect(api.editCompaction).toHaveBeenCalledWith('/p', 's1', 'cp1', 'new');
    expect(s.transcript.compactions[0]!.summary).toBe('new');

    // An answer for a session no longer open is not shown.
    api.undoCompaction.mockImplementation(async () => {
      s.newSession();
      return stored(messages, base);
    });
    await s.undoCompaction();
    expect(s.transcript.runs).toEqual([]);

    api.compactSession.mockRejectedValue({ code: 'invalid', message: 'the conversation is too short to compact' });
    await s.open('s1');
    await expect(s.compact()).rejects.toEqual({ code: 'invalid', message: 'the conversation is too short to compact' });
    expect(s.compacting).toBe(false);

    s.draft = 'more';
    await s.send();
    await expect(s.undoCompaction()).rejects.toMatchObject({ code: 'busy' });
    expect(api.undoCompaction).toHaveBeenCalledTimes(1);
  });

  it('continues with the fixed prompt and leaves the draft alone', async () => {
    const s = new SessionController('/p');
    s.draft = 'half-typed';
    await s.continueRun();
    expect(api.sendPrompt).toHaveBeenCalledWith('/p', null, 'Continue where you left off.', expect.any(Function));
    expect(s.draft).toBe('half-typed');
    expect(s.transcript.runs.map((r) => r.prompt)).toEqual(['Continue where you left off.']);
  });

  describe('a new session in its own worktree', () => {
    it('makes the worktree first, then starts the session in it', async () => {
      let done: (m: typeof made) => void = () => {};
      api.createWorktree.mockReturnValue(new Promise((resolve) => (done = resolve)));
      const s = new SessionController('/p');
      s.newSession(true);
      expect(s.inWorktree).toBe(true);
      s.draft = 'Fix the login';
      const sending = s.send();
      expect(s.preparing).toBe('Making a worktree…');
      expect(s.preparingPrompt).toBe('Fix the login');
      expect(s.draft).toBe('');
      expect(api.createWorktree).toHaveBeenCalledWith('/p', null, 'Fix the login', false);
      // Not twice while it is made.
      s.draft = 'again';
      await s.send();
      expect(api.createWorktree).toHaveBeenCalledTimes(1);
      expect(s.draft).toBe('again');
      expect(api.sendPrompt).not.toHaveBeenCalled();

      done(made);
      await sending;
      expect(api.sendPrompt).toHaveBeenCalledWith('/p', null, 'Fix the login', expect.any(Function), 'fix-login');
      expect(s.sessionId).toBe('session-1');
      expect(s.created).toBe(made);
      expect(s.preparing).toBeNull();
      expect(s.inWorktree).toBe(false);
      // Words written meanwhile stay in the composer.
      expect(s.draft).toBe('again');
      expect(s.transcript.runs[0]!.prompt).toBe('Fix the login');
      // The next prompt goes to the same session, no new worktree.
      emit({ type: 'run_finished', exit: 'end_turn', turns: 0, usage: { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0 } });
      await vi.waitFor(() => expect(s.running).toBe(false));
      await s.send('more');
      expect(api.createWorktree).toHaveBeenCalledTimes(1);
      expect(api.sendPrompt).toHaveBeenLastCalledWith('/p', 'session-1', 'more', expect.any(Function));
    });

    it('puts the prompt back and says why when the worktree cannot be made', async () => {
      api.createWorktree.mockRejectedValue({ code: 'worktree', message: '/p is not a git repository' });
      const s = new SessionController('/p');
      s.newSession(true);
      s.draft = 'Fix the login';
      const versions = s.listVersion;
      await s.send();
      expect(s.error).toEqual({ code: 'worktree', message: '/p is not a git repository' });
      expect(s.draft).toBe('Fix the login');
      expect(s.preparing).toBeNull();
      expect(s.inWorktree).toBe(true);
      expect(s.created).toBeNull();
      expect(s.transcript.runs).toEqual([]);
      expect(s.sessionId).toBeNull();
      expect(s.listVersion).toBe(versions);
      expect(api.sendPrompt).not.toHaveBeenCalled();
    });

    it('offers a plain copy to a folder outside git, and sends the prompt into one', async () => {
      api.createWorktree.mockRejectedValueOnce({
        code: 'not_a_repository',
        message: '/p is not in a git repository: work in a plain copy of it instead',
      });
      api.createWorktree.mockResolvedValueOnce(made);
      api.sendPrompt.mockResolvedValue('session-1');
      const s = new SessionController('/p');
      s.newSession(true);
      s.draft = 'Fix the login';
      await s.send();
      expect(s.offerCopy).toBe(true);
      expect(s.draft).toBe('Fix the login');
      await s.sendInCopy();
      expect(api.createWorktree).toHaveBeenLastCalledWith('/p', null, 'Fix the login', true);
      expect(api.sendPrompt).toHaveBeenLastCalledWith('/p', null, 'Fix the login', expect.any(Function), made.worktree.name);
      expect(s.offerCopy).toBe(false);
      expect(s.plainCopy).toBe(false);
      // Any other failure offers nothing, whatever its words: the code decides.
      api.createWorktree.mockRejectedValueOnce({ code: 'io', message: 'disk full' });
      s.newSession(true);
      s.draft = 'Again';
      await s.send();
      expect(s.offerCopy).toBe(false);
      api.createWorktree.mockRejectedValueOnce({ code: 'invalid', message: 'not in a git repository' });
      s.newSession(true);
      s.draft = 'Again';
      await s.send();
      expect(s.offerCopy).toBe(false);
    });

    it('discards the worktree again when the session cannot start', async () => {
      api.createWorktree.mockResolvedValue(made);
      api.landWorktree.mockResolvedValue({});
      api.sendPrompt.mockRejectedValue({ code: 'model', message: 'No API key' });
      const s = new SessionController('/p');
      s.newSession(true);
      s.draft = 'Fix the login';
      await s.send();
      expect(s.error?.message).toBe('No API key');
      expect(s.draft).toBe('Fix the login');
      expect(s.transcript.runs).toEqual([]);
      expect(s.running).toBe(false);
      await vi.waitFor(() => expect(api.landWorktree).toHaveBeenCalledWith('/p', 'fix-login', { action: 'discard' }));
    });

    it('goes back to a plain session when asked', async () => {
      const s = new SessionController('/p');
      s.newSession(true);
      s.newSession();
      expect(s.inWorktree).toBe(false);
      await s.send('hello');
      expect(api.createWorktree).not.toHaveBeenCalled();
      expect(api.sendPrompt).toHaveBeenCalledWith('/p', null, 'hello', expect.any(Function));
    });
  });

  it('lists the sessions whose run waits for an approval', async () => {
    const s = new SessionController('/p');
    await s.send('go');
    const bash = call('c2', 'bash', { command: 'ls' });
    emit({ type: 'run_started', agent: 'main', model: 'm', max_turns: 100 });
    emit({ type: 'turn_started', turn: 1 });
    emit({ type: 'tool_call_started', summary: '', call: bash });
    emit({ type: 'approval_requested', summary: '', request_id: 'approval-1', call: bash });
    await vi.waitFor(() => expect(s.waitingSessions).toEqual(['session-1']));
    emit({ type: 'approval_resolved', request_id: 'approval-1', decision: 'once' });
    await vi.waitFor(() => expect(s.waitingSessions).toEqual([]));
    expect(s.liveSessions).toEqual(['session-1']);
  });
});
