// One project window's conversation: which session is open, its transcript, and the runs in
// flight. A run keeps streaming into its own transcript when the user opens another session;
// coming back shows it live again.
import { SvelteMap } from 'svelte/reactivity';
import * as api from './api';
import { transcriptReady } from './lazy.svelte';
import type {
  AgentEvent,
  AppError,
  ApprovalDecision,
  PromptAttachment,
  RewindMode,
  SessionTranscript,
  WorktreeCreated,
} from './bindings';
import { attachedAction } from './attached';
import { fromStored, placeOfMessage } from './stored';
import {
  emptyTranscript,
  reduce,
  reduceAll,
  type AlwaysAllow,
  type AlwaysAllowHost,
  type Transcript,
} from './transcript';
import { MAKING, waitsForApproval } from './worktrees';

/** The provider an external agent's sessions are recorded with (its name is the model). */
const EXTERNAL_PROVIDER = 'acp';

interface LiveRun {
  sessionId: string | null;
  /** The external agent the run's prompt went to (null: Paddock's own). */
  agent: string | null;
  /** Resolves with the session id once `send_prompt` answered. */
  id: Promise<string>;
  transcript: Transcript;
  queue: AgentEvent[];
  /** A batch is waiting: for a frame (`frame`), with `timer` as the fallback. */
  frame?: number;
  timer?: ReturnType<typeof setTimeout>;
  /** When the last batch went to the view. */
  flushed: number;
  finished: boolean;
}

/**
 * How long events gather before the view updates: one render per batch, not per token. A
 * batch goes out at the start of an animation frame, so its work never lands in the middle of
 * one and delays it (a 50,000-token answer: frames of ~20 ms at p95 when batches ran on a
 * timer); a window that paints no frames (hidden) still gets it after `MAX_WAIT_MS`.
 */
const BATCH_MS = 30;
const MAX_WAIT_MS = 100;
/** A frame this close to `BATCH_MS` after the last batch is late enough. */
const FRAME_SLACK_MS = 8;

/** Turns a stored session opens on (two of the panel's pages); the rest comes when asked for. */
export const OPEN_TURNS = 20;

/** What Continue sends after a run used all its turns. */
export const CONTINUE_PROMPT = 'Continue where you left off.';

export class SessionController {
  readonly project: string;
  sessionId = $state<string | null>(null);
  transcript = $state.raw<Transcript>(emptyTranscript());
  /** Counts the transcripts put in place whole (a session opened, rewound, a live run shown). */
  placed = $state(0);
  /** Lines of the session file that could not be read. */
  loadWarnings = $state.raw<string[]>([]);
  /** The open session has a run in flight. */
  running = $state(false);
  /** The open session is being compacted: nothing is sent meanwhile. */
  compacting = $state(false);
  /** Bumped when a run of this window ended (the project's instructions may have changed). */
  runsEnded = $state(0);
  draft = $state('');
  /** A prompt written while a run went on: sent when that run ends. */
  queued = $state<string | null>(null);
  error = $state<AppError | null>(null);
  /** Bumped when the session list may have changed. */
  listVersion = $state(0);
  /** A search hit to bring into view: its run and turn (0: the prompt); a new object each time. */
  found = $state.raw<{ run: number; turn: number } | null>(null);
  /** Sessions with a run going on in this window (the sidebar's badge). */
  liveSessions = $state<string[]>([]);
  /** Sessions whose live run waits for an approval (the sidebar's state). */
  waitingSessions = $state<string[]>([]);
  /** The next first prompt starts a session in its own worktree (branch and checkout). */
  inWorktree = $state(false);
  /** The external agent a new session's first prompt goes to (null: Paddock's own). */
  agent = $state<string | null>(null);
  /** The external agent the shown session belongs to (null: Paddock's own): its model is
   * its own, so the model picker does not apply to it. */
  externalAgent = $state<string | null>(null);
  /** The next worktree is a plain copy of the folder (it is outside git). */
  plainCopy = $state(false);
  /** The last worktree could not be made for want of git: a plain copy can be offered. */
  offerCopy = $state(false);
  /** What is being done before a new session's first prompt can go (its worktree made). */
  preparing = $state<string | null>(null);
  /** The prompt that goes once `preparing` is done. */
  preparingPrompt = $state<string | null>(null);
  /** The worktree made last, with what was copied in and its setup (the panel's notice). */
  created = $state.raw<WorktreeCreated | null>(null);

  // Bookkeeping only; what renders is `transcript` and `running`.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  #live = new Set<LiveRun>();
  #shown: LiveRun | null = null;
  /** What the prompt being sent attaches, and what the queued one will. */
  #attachments: PromptAttachment[] = [];
  #queuedAttachments: PromptAttachment[] = [];
  /** Attachments of a queued prompt taken back: the composer puts them back in its trays and
   * empties this. */
  returned = $state.raw<PromptAttachment[]>([]);

  constructor(project: string) {
    this.project = project;
  }

  /** Sends the composer's draft, or `text` (the draft then stays as it is), with the files
   * it attaches. While a run goes on, the draft is queued instead and sent when the run ends.
   * False when the attachments did not go (nothing sent, or the send failed): the caller
   * gives them back to the composer, as the words are. */
  async send(text?: string, attachments: PromptAttachment[] = []): Promise<boolean> {
    const fromDraft = text === undefined;
    const prompt = (text ?? this.draft).trim();
    // A worktree is being made for a prompt: nothing else goes until it has.
    if (this.preparing !== null) return false;
    if (fromDraft && prompt && this.running && this.queued === null) {
      this.queued = prompt;
      this.#queuedAttachments = attachments;
      this.draft = '';
      return true;
    }
    this.#attachments = attachments;
    if (!prompt || this.running || this.compacting) return false;
    this.error = null;
    // Markdown's code is there long before the model's first words.
    void transcriptReady();
    if (this.sessionId === null && this.inWorktree) {
      const worktree = await this.#makeWorktree(prompt, fromDraft);
      return worktree !== null && (await this.#start(prompt, fromDraft, worktree));
    }
    return this.#start(prompt, fromDraft, null);
  }

  /**
   * Makes the worktree a new session's first prompt goes to; its name, or null when that
   * failed (the prompt is back in the composer and `error` says why). The draft is cleared
   * meanwhile: words written while it is made stay.
   */
  async #makeWorktree(prompt: string, fromDraft: boolean): Promise<string | null> {
    this.preparing = MAKING;
    this.preparingPrompt = prompt;
    if (fromDraft) this.draft = '';
    try {
      const made = await api.createWorktree(this.project, null, prompt, this.plainCopy);
      this.created = made;
      this.inWorktree = false;
      this.plainCopy = false;
      return made.worktree.name;
    } catch (err) {
      if (fromDraft) this.#putBack(prompt);
      this.error = api.toAppError(err);
      // A folder outside git: the error offers a plain copy of it instead.
      this.offerCopy = !this.plainCopy && this.error.code === 'not_a_repository';
      return null;
    } finally {
      this.preparing = null;
      this.preparingPrompt = null;
    }
  }

  /** A prompt that did not go back into the new session's composer, before what is there. */
  #putBack(prompt: string): void {
    const join = (now: string) => (now ? `${prompt}\n${now}` : prompt);
    if (this.sessionId === null) this.draft = join(this.draft);
    else this.#drafts.set('', join(this.#drafts.get('') ?? ''));
  }

  /**
   * Starts a run of `prompt`: in the open session, or in a new one in `worktree`. A new
   * session in a worktree made while the user opened another session runs unseen (the
   * sidebar shows it) rather than take the view away.
   */
  async #start(prompt: string, fromDraft: boolean, worktree: string | null): Promise<boolean> {
    const show = worktree === null || this.sessionId === null;
    const before = show ? this.transcript : emptyTranscript();
    const run: LiveRun = {
      sessionId: show ? this.sessionId : null,
      agent: worktree !== null || this.sessionId === null ? this.agent : this.externalAgent,
      id: Promise.resolve(''),
      transcript: reduce(before, { type: 'user_prompt', text: prompt, ...attachedAction(this.#attachments) }),
      queue: [],
      finished: false,
      flushed: Number.NEGATIVE_INFINITY,
    };
    this.#live.add(run);
    if (show) this.#show(run);
    // A worktree's prompt left the composer when the worktree began to be made.
    if (fromDraft && worktree === null) this.draft = '';
    const onEvent = (e: AgentEvent) => this.#receive(run, e);
    run.id = worktree
      ? this.#send(null, prompt, onEvent, worktree)
      : this.#send(this.sessionId, prompt, onEvent, null);
    try {
      const id = await run.id;
      run.sessionId = id;
      if (!run.finished) this.liveSessions = [...this.liveSessions, id];
      this.#noteWaiting(run);
      if (this.#shown === run) this.sessionId = id;
      this.listVersion++;
      return true;
    } catch (err) {
      this.#live.delete(run);
      // A worktree no session works in goes again (nothing is in it yet).
      if (worktree !== null) {
        void Promise.resolve()
          .then(() => api.landWorktree(this.project, worktree, { action: 'discard' }))
          .catch(() => undefined);
      }
      const shown = this.#shown === run;
      if (shown) {
        this.#shown = null;
        this.transcript = before;
        this.running = false;
      }
      if (worktree !== null) {
        if (fromDraft) this.#putBack(prompt);
        this.error = api.toAppError(err);
      } else if (shown) {
        if (fromDraft) this.draft = prompt;
        this.error = api.toAppError(err);
      }
      return false;
    }
  }

  /** `sendPrompt` with the attachments taken (none: the call is as it always was). */
  #send(sessionId: string | null, prompt: string, onEvent: (e: AgentEvent) => void, worktree: string | null): Promise<string> {
    const taken = this.#attachments;
    this.#attachments = [];
    // A stored session keeps the agent it began with: only a new one is given one.
    if (this.agent !== null && sessionId === null)
      return api.sendPrompt(this.project, sessionId, prompt, onEvent, worktree, taken, this.agent);
    if (taken.length) return api.sendPrompt(this.project, sessionId, prompt, onEvent, worktree, taken);
    return worktree ? api.sendPrompt(this.project, sessionId, prompt, onEvent, worktree) : api.sendPrompt(this.project, sessionId, prompt, onEvent);
  }

  /** Takes the queued prompt back into the composer; its attachments go to `returned`. */
  unqueue(): void {
    if (this.queued === null) return;
    this.draft = this.draft ? `${this.queued}\n${this.draft}` : this.queued;
    this.queued = null;
    if (this.#queuedAttachments.length) this.returned = [...this.returned, ...this.#queuedAttachments];
    this.#queuedAttachments = [];
  }

  /** The last prompt of the open session, for ↑ in an empty composer. */
  lastPrompt(): string | undefined {
    return this.transcript.runs.findLast((r) => r.prompt)?.prompt;
  }

  async stop(): Promise<void> {
    const run = this.#shown;
    if (!run || run.finished) return;
    await this.#try(async () => api.stopRun(this.project, await run.id));
  }

  /**
   * Answers an approval; "Always allow" saves its rules first, then runs the call once, and
   * "Always for this project" on a network card saves its host rule, then lets the connection
   * through once. True when the answer reached the shell.
   */
  async approve(requestId: string, answer: ApprovalDecision | AlwaysAllow | AlwaysAllowHost): Promise<boolean> {
    const run = this.#shown;
    if (!run) return false;
    return this.#try(async () => {
      const id = await run.id;
      if (typeof answer === 'string') return api.approve(this.project, id, requestId, answer);
      if ('networkRule' in answer) await api.alwaysAllowHost(this.project, id, requestId, answer.networkRule);
      else await api.alwaysAllow(this.project, id, requestId, answer.tool, answer.patterns);
      // The settings file changed: screens showing it must not save an older copy over it.
      this.onSettingsChanged?.();
    });
  }

  /** Called when an answer changed the project's settings (a rule saved by "Always allow"). */
  onSettingsChanged: (() => void) | null = null;

  /**
   * Opens a stored session, or its live run when one is going; with `message` (a search hit's
   * index in the history) the whole session, to show that message.
   */
  async open(sessionId: string, message?: number): Promise<void> {
    this.error = null;
    this.found = null;
    this.inWorktree = false;
    if (sessionId !== this.sessionId) this.unqueue();
    const live = [...this.#live].find((r) => r.sessionId === sessionId && !r.finished);
    if (live) {
      this.#switchDraft(sessionId);
      this.sessionId = sessionId;
      this.#show(live);
      return;
    }
    await this.#try(async () => {
      // Marks for scripts/bench-desktop.sh (IPC, rebuild, render): cheap, and kept.
      performance.mark('paddock:session-open');
      const whole = message !== undefined;
      // Markdown's code loads alongside, so the transcript shows rendered from its first frame.
      const [stored] = await Promise.all([
        api.loadSession(this.project, sessionId, whole ? undefined : OPEN_TURNS),
        transcriptReady(),
      ]);
      performance.mark('paddock:session-loaded');
      this.#switchDraft(sessionId);
      this.sessionId = sessionId;
      this.#showStored(stored);
      const place = whole ? placeOfMessage(stored.messages, message) : null;
      if (place) this.found = place;
      performance.mark('paddock:session-rebuilt');
    });
  }

  /** The open session whole, when it was opened on its last turns (not while it runs). */
  async loadWhole(): Promise<void> {
    const id = this.sessionId;
    if (!id || !this.transcript.omitted || this.running || this.compacting) return;
    await this.#try(async () => {
      const stored = await api.loadSession(this.project, id);
      if (this.sessionId === id && !this.running) this.#showStored(stored);
    });
  }

  /**
   * Rewinds the open session to before prompt `prompt` (1-based), turn `turn` (0: the prompt
   * itself) and shows it as it now reads. Rejects with the AppError, for the dialog to show.
   */
  async rewind(prompt: number, turn: number, mode: RewindMode): Promise<void> {
    const id = this.sessionId;
    if (!id || this.running) {
      throw { code: 'busy', message: 'Wait for the run to end, then rewind.' } satisfies AppError;
    }
    const text = this.transcript.runs[prompt - 1 - (this.transcript.omitted?.runs ?? 0)]?.prompt;
    const stored = await api.rewindSession(this.project, id, prompt, turn, mode);
    this.listVersion++;
    if (this.sessionId !== id) return;
    this.#showStored(stored);
    // Back to before a prompt: it goes back into the composer, to edit and send again.
    // Never over words the user is writing: those stay.
    if (turn === 0 && mode !== 'files_only' && text !== undefined && !this.draft.trim()) this.draft = text;
  }

  /** Undoes the open session's last rewind; true when done (else `error` says why). */
  async undoRewind(): Promise<boolean> {
    const id = this.sessionId;
    if (!id || this.running) return false;
    this.error = null;
    return this.#try(async () => {
      const stored = await api.undoRewind(this.project, id);
      this.listVersion++;
      if (this.sessionId === id) this.#showStored(stored);
    });
  }

  /** Goes on with a run that used all its turns, in the same session. */
  async continueRun(): Promise<void> {
    await this.send(CONTINUE_PROMPT);
  }

  /**
   * Has the model summarize the start of the open session's conversation, then shows the
   * session as it now reads. Rejects with the AppError, for the button to show.
   */
  async compact(): Promise<void> {
    const id = this.#idle('compact');
    this.compacting = true;
    try {
      await this.#replace(id, api.compactSession(this.project, id));
    } finally {
      this.compacting = false;
    }
  }

  /** Undoes the open session's latest compaction. Rejects with the AppError. */
  async undoCompaction(): Promise<void> {
    const id = this.#idle('undo the compaction');
    await this.#replace(id, api.undoCompaction(this.project, id));
  }

  /** Replaces the latest compaction's summary. Rejects with the AppError. */
  async editCompaction(compaction: string, summary: string): Promise<void> {
    const id = this.#idle('edit the summary');
    await this.#replace(id, api.editCompaction(this.project, id, compaction, summary));
  }

  /** The open session's id when nothing runs in it; else throws the AppError to show. */
  #idle(what: string): string {
    const id = this.sessionId;
    if (!id) throw { code: 'session', message: `Open a session to ${what}.` } satisfies AppError;
    if (this.running || this.compacting) {
      throw { code: 'busy', message: `Wait for the run to end, then ${what}.` } satisfies AppError;
    }
    return id;
  }

  /** Shows what a command on session `id` returned, unless another session was opened since. */
  async #replace(id: string, answer: Promise<SessionTranscript>): Promise<void> {
    let stored: SessionTranscript;
    try {
      stored = await answer;
    } catch (err) {
      throw api.toAppError(err);
    }
    this.listVersion++;
    if (this.sessionId === id) this.#showStored(stored);
  }

  /** Sends the draft again, into a plain copy of the folder (the offer after a folder
   * outside git refused a worktree). */
  async sendInCopy(): Promise<void> {
    this.offerCopy = false;
    this.plainCopy = true;
    this.inWorktree = true;
    await this.send();
  }

  /** An empty conversation; `inWorktree`: its first prompt makes it a worktree of its own. */
  newSession(inWorktree = false): void {
    this.inWorktree = inWorktree;
    this.plainCopy = false;
    this.offerCopy = false;
    this.unqueue();
    this.found = null;
    this.#shown = null;
    this.#switchDraft(null);
    this.sessionId = null;
    this.externalAgent = null;
    this.transcript = emptyTranscript();
    this.loadWarnings = [];
    this.running = false;
    this.error = null;
  }

  async remove(sessionId: string): Promise<void> {
    await this.#try(async () => {
      await api.deleteSession(this.project, sessionId);
      if (this.sessionId === sessionId) this.newSession();
      this.listVersion++;
    });
  }

  /** Unsent words belong to the session they were typed in ('' : a new one). */
  readonly #drafts = new SvelteMap<string, string>();

  /** Keeps the draft of the session being left, and brings back the one of `to`. */
  #switchDraft(to: string | null): void {
    const from = this.sessionId ?? '';
    if ((to ?? '') === from) return;
    if (this.draft) this.#drafts.set(from, this.draft);
    else this.#drafts.delete(from);
    this.draft = this.#drafts.get(to ?? '') ?? '';
    this.#drafts.delete(to ?? '');
  }

  #showStored(stored: SessionTranscript): void {
    this.placed++;
    this.#shown = null;
    this.transcript = fromStored(stored.messages, stored.events, stored.omitted);
    this.externalAgent = stored.header.provider === EXTERNAL_PROVIDER ? stored.header.model : null;
    this.loadWarnings = stored.warnings;
    this.running = false;
  }

  #show(run: LiveRun): void {
    this.placed++;
    this.#shown = run;
    this.transcript = run.transcript;
    this.externalAgent = run.agent;
    this.loadWarnings = [];
    this.running = !run.finished;
  }

  #receive(run: LiveRun, event: AgentEvent): void {
    run.queue.push(event);
    if (run.timer !== undefined) return;
    const frames = typeof requestAnimationFrame !== 'undefined';
    run.timer = setTimeout(() => this.#flush(run), frames ? MAX_WAIT_MS : BATCH_MS);
    if (!frames) return;
    const onFrame = (now: number) => {
      if (now - run.flushed < BATCH_MS - FRAME_SLACK_MS) run.frame = requestAnimationFrame(onFrame);
      else this.#flush(run);
    };
    run.frame = requestAnimationFrame(onFrame);
  }

  #flush(run: LiveRun): void {
    clearTimeout(run.timer);
    if (run.frame !== undefined) cancelAnimationFrame(run.frame);
    run.timer = run.frame = undefined;
    run.flushed = performance.now();
    const events = run.queue.splice(0);
    const t = reduceAll(run.transcript, events);
    if (events.some((e) => e.type === 'run_finished')) run.finished = true;
    run.transcript = t;
    this.#noteWaiting(run);
    if (run.finished) {
      this.#live.delete(run);
      this.liveSessions = this.liveSessions.filter((id) => id !== run.sessionId);
      this.listVersion++;
      this.runsEnded++;
    }
    if (this.#shown === run) {
      this.transcript = t;
      this.running = !run.finished;
      // The queued prompt goes to the session it was written for, once its run is over.
      if (run.finished && this.queued !== null) {
        const next = this.queued;
        this.queued = null;
        void this.send(next, this.#queuedAttachments);
        this.#queuedAttachments = [];
      }
    }
  }

  /** Keeps `waitingSessions` in step with the run's approval cards. */
  #noteWaiting(run: LiveRun): void {
    const id = run.sessionId;
    if (!id) return;
    const waits = !run.finished && waitsForApproval(run.transcript);
    const listed = this.waitingSessions.includes(id);
    if (waits && !listed) this.waitingSessions = [...this.waitingSessions, id];
    else if (!waits && listed) this.waitingSessions = this.waitingSessions.filter((s) => s !== id);
  }

  async #try(f: () => Promise<unknown>): Promise<boolean> {
    try {
      await f();
      return true;
    } catch (err) {
      this.error = api.toAppError(err);
      return false;
    }
  }
}
