// The transcript as the UI shows it, built by a pure reducer over the run's events. The live
// stream and a stored session (see stored.ts) go through the same reducer, so both render
// the same way. Inputs are never changed: a batch of actions copies each object it touches
// once (copy-on-write), so replaying 10,000 events stays linear.
import type {
  AgentEvent,
  ApprovalDecision,
  CallPreview,
  ChangeSummary,
  CompactionInfo,
  ContextInfo,
  Cost,
  ErrorKind,
  ExitReason,
  FileChange,
  HookRun,
  LoopAction,
  LoopKind,
  NetworkConnection,
  Plan,
  Pricing,
  Omitted,
  Retry,
  RewindInfo,
  StopReason,
  TokenUsage,
  ToolCall,
  ToolStatus,
} from './bindings';
import type { Attached } from './attached';

export type CardState = 'running' | 'waiting' | 'ok' | 'error' | 'denied';

/** "Always allow": save these allow rules for the tool, then run this call once. */
export interface AlwaysAllow {
  tool: string;
  patterns: string[];
}

/** "Always for this project" on a network card: save this `network.allow` rule, then let the
 * waiting connection through once. */
export interface AlwaysAllowHost {
  networkRule: string;
}

export interface Approval {
  requestId: string;
  /** Set once the request was answered. */
  decision?: ApprovalDecision;
  /** Why it asks: the rule that matched, or the tool's grant. */
  why?: string;
  /** The allow rules "Always allow" would save; none when no rule could allow the call. */
  proposedRules?: string[];
  /** The external agent whose own rules those are (saved in its agents.json entry). */
  rulesForAgent?: string;
}

export interface DelegatedRun {
  agent: string;
  depth: number;
  transcript: Transcript;
}

export interface ToolCard {
  id: string;
  name: string;
  /** Missing when only the result is known (e.g. a teammate's call in a stored session). */
  input?: unknown;
  parsedFromText: boolean;
  /** What the call does in one line, as the tool describes it (empty when unknown). */
  summary?: string;
  state: CardState;
  /** How the call ended, as the executor decided. */
  status?: ToolStatus;
  output?: string;
  durationMs?: number;
  approval?: Approval;
  delegated?: DelegatedRun;
  /** What the call changed in the files (file_write, file_edit). */
  changes?: FileChange[];
  /** What the call would do, shown while it waits for approval. */
  preview?: CallPreview;
  /** Which rule or grant let it run (or refused it). */
  why?: string;
  /** The connections it made through the network fence, in the order they ended. */
  connections?: NetworkConnection[];
  /** The hooks that ran before and after it, in order. */
  hooks?: HookRun[];
}

export type Notice =
  | { kind: 'warning'; message: string; retry?: Retry }
  | { kind: 'loop'; loop: LoopKind; repetitions: number; action: LoopAction; detail: string }
  | { kind: 'error'; error: ErrorKind; message: string };

export interface Turn {
  n: number;
  thinking: string;
  text: string;
  cards: ToolCard[];
  /** Sum of this turn's usage events (the model call plus any delegated usage). */
  usage?: TokenUsage;
  stop?: StopReason;
  notices: Notice[];
  /** The workspace was recorded before this turn's tools ran: it can be rewound to here. */
  checkpoint?: string;
  /** Set aside by a rewind: kept and shown, no longer part of the conversation. */
  rewound?: boolean;
  /** Replaced by a compaction's summary: kept and shown collapsed. */
  summarized?: boolean;
  /** The plan as the agent's `todo_write` left it in this turn. */
  plan?: Plan;
  /** What this turn's model calls cost (absent in sessions written before costs). */
  cost?: Cost;
}

export interface RunEnd {
  exit: ExitReason;
  turns: number;
  usage: TokenUsage;
  cost?: Cost;
}

export interface Run {
  prompt?: string;
  /** What the prompt took along: named files and folders, images. */
  attached?: Attached[];
  /** The hooks that ran on the prompt, the session's start or the agent's stop. */
  hooks?: HookRun[];
  agent?: string;
  model?: string;
  /** Model calls the run may make (absent when unknown: older sessions). */
  maxTurns?: number;
  /** Notices that came before the first turn. */
  notices: Notice[];
  turns: Turn[];
  /** The run's total so far. */
  usage: TokenUsage;
  /** What it cost so far (absent in sessions written before costs). */
  cost?: Cost;
  /** How its model is priced. */
  pricing?: Pricing;
  end?: RunEnd;
  /** The workspace before the prompt: the run can be rewound to its start. */
  checkpoint?: string;
  /** Every file the run changed, between two checkpoints. */
  changes?: RunChanges;
  /** Set aside by a rewind, prompt and turns included. */
  rewound?: boolean;
}

export interface RunChanges {
  from: string;
  to: string;
  files: ChangeSummary[];
}

/** One rewound flag a rewind changed: the run's own (no `turn`) or one of its turns'. */
export interface RewindMark {
  run: number;
  /** Index in `run.turns`. */
  turn?: number;
  was: boolean;
}

export interface Rewind extends RewindInfo {
  /** Index of the run it came after (-1: before any). */
  afterRun: number;
  /** The flags it changed, with their earlier values, so undoing it puts back exactly those. */
  marks: RewindMark[];
}

/** One turn a compaction marked summarized. */
export interface CompactionMark {
  run: number;
  /** Index in `run.turns`. */
  turn: number;
}

export interface Compaction extends CompactionInfo {
  /** Index of the run it happened in (`beforeTurn` set) or after (-1: before any). */
  afterRun: number;
  /** In a run: the index in `run.turns` of the turn it came before. */
  beforeTurn?: number;
  /** How many rewinds came before it: orders it among the rewind markers between runs. */
  afterRewinds: number;
  /** The turns it marked summarized, so undoing it unmarks exactly those. */
  marks: CompactionMark[];
  undone?: boolean;
  /** The session's context before it, and the estimate it left (see `applyCompaction`). */
  contextBefore?: ContextInfo;
  contextAfter?: ContextInfo;
}

export interface Transcript {
  runs: Run[];
  /** Rewinds of the session (and undos of them), in order. */
  rewinds: Rewind[];
  /** Compactions of the session, in order; undone ones stay, flagged. */
  compactions: Compaction[];
  /** How full the model's context was at the latest model call (or after a compaction). */
  context?: ContextInfo;
  /** A stored session opened on its last turns: what its start left out. */
  omitted?: Omitted;
}

/** A user prompt is not an agent event: the UI adds it when it sends one. */
export type TranscriptAction = AgentEvent | { type: 'user_prompt'; text: string; attached?: Attached[] };

/** Turns searched for the card a result or a teammate's event belongs to (see `cardOf`). */
const RESULT_TURNS = 2;

export const emptyTranscript = (): Transcript => ({ runs: [], rewinds: [], compactions: [] });

const ZERO: TokenUsage = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0 };

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_read_tokens: a.cache_read_tokens + b.cache_read_tokens,
  };
}

/** Nothing spent: adding it changes nothing. */
export const NO_COST: Cost = { usd: 0, complete: true, local: true };

export const addCost = (a: Cost, b: Cost): Cost => ({
  usd: a.usd + b.usd,
  complete: a.complete && b.complete,
  local: a.local && b.local,
});

/**
 * The whole session's cost: every run's (a run from before costs were recorded, with tokens,
 * counts as unknown). Undefined when no run says anything.
 */
export function totalCost(t: Transcript): Cost | undefined {
  let sum: Cost | undefined = t.omitted?.cost;
  for (const run of t.runs) {
    const usage = run.end?.usage ?? run.usage;
    const used = usage.input_tokens + usage.output_tokens > 0;
    const cost = run.end?.cost ?? run.cost ?? (used ? { usd: 0, complete: false, local: false } : undefined);
    if (cost) sum = addCost(sum ?? NO_COST, cost);
  }
  return sum;
}

/** The whole session's usage: every run's total. */
export function totalUsage(t: Transcript): TokenUsage {
  return t.runs.reduce((sum, run) => addUsage(sum, run.end?.usage ?? run.usage), t.omitted?.usage ?? ZERO);
}

/** The turns the view counts for these runs (a run with none still takes a place). */
export const turnPlaces = (runs: readonly Run[]): number =>
  runs.reduce((n, r) => n + Math.max(r.turns.length, 1), 0);

/**
 * The agent's plan as it stands: the last one set in a turn the conversation still holds (a
 * rewind that set that turn aside brings back the one before). Null when none, or when the
 * agent cleared it.
 */
export function currentPlan(t: Transcript): Plan | null {
  for (let r = t.runs.length - 1; r >= 0; r--) {
    const run = t.runs[r]!;
    if (run.rewound) continue;
    for (let i = run.turns.length - 1; i >= 0; i--) {
      const turn = run.turns[i]!;
      if (turn.rewound || !turn.plan) continue;
      return turn.plan.items.length ? turn.plan : null;
    }
  }
  return null;
}

/** True while the last run has not finished. */
export function isRunning(t: Transcript): boolean {
  const last = t.runs.at(-1);
  return last !== undefined && last.agent !== undefined && last.end === undefined;
}

/** The compaction in effect that can be undone or edited: the last one not undone. */
export function latestCompaction(t: Transcript): Compaction | undefined {
  return t.compactions.findLast((c) => !c.undone);
}

/** The state after one action. */
export function reduce(state: Transcript, action: TranscriptAction): Transcript {
  return reduceAll(state, [action]);
}

/** The state after a batch of actions, in order. */
export function reduceAll(state: Transcript, actions: Iterable<TranscriptAction>): Transcript {
  const d = new Draft();
  let t = state;
  for (const action of actions) t = apply(d, t, action);
  return t;
}

/** Copies made during one batch may be changed in place; everything else is copied first. */
class Draft {
  #mine = new WeakSet<object>();

  own<T extends object>(o: T): T {
    if (this.#mine.has(o)) return o;
    return this.fresh((Array.isArray(o) ? o.slice() : { ...o }) as T);
  }

  fresh<T extends object>(o: T): T {
    this.#mine.add(o);
    return o;
  }
}

const newRun = (d: Draft, prompt?: string, attached?: Attached[]): Run =>
  d.fresh({ prompt, ...(attached?.length ? { attached } : {}), notices: d.fresh([]), turns: d.fresh([]), usage: ZERO });

const newTurn = (d: Draft, n: number): Turn =>
  d.fresh({ n, thinking: '', text: '', cards: d.fresh([]), notices: d.fresh([]) });

function apply(d: Draft, state: Transcript, action: TranscriptAction): Transcript {
  const t = d.own(state);
  t.runs = d.own(t.runs);
  if (action.type === 'user_prompt') {
    t.runs.push(newRun(d, action.text, action.attached));
    return t;
  }
  switch (action.type) {
    // A rewind happens between runs: it starts none and belongs to none.
    case 'rewound':
      applyRewind(d, t, action);
      return t;
    // The session's, not a run's: the meter shows the latest.
    case 'context': {
      const { type, ...info } = action;
      void type;
      t.context = d.fresh(info);
      return t;
    }
    // In a run or between runs; it starts none.
    case 'compacted':
      applyCompaction(d, t, action);
      return t;
    case 'compaction_undone':
      undoCompaction(d, t, action.id);
      return t;
    case 'compaction_edited': {
      const at = t.compactions.findIndex((c) => c.id === action.id);
      if (at < 0) return t;
      t.compactions = d.own(t.compactions);
      t.compactions[at] = d.fresh({ ...t.compactions[at]!, summary: action.summary });
      return t;
    }
  }
  const last = t.runs.at(-1);
  // run_started fills the run the UI opened with the prompt, or starts a new one.
  const reuse =
    action.type !== 'run_started' ||
    (last && last.agent === undefined && last.turns.length === 0 && !last.end);
  if (!last || !reuse) t.runs.push(newRun(d));
  const run = d.own(t.runs.at(-1)!);
  t.runs[t.runs.length - 1] = run;
  applyToRun(d, run, action);
  return t;
}

function applyToRun(d: Draft, run: Run, event: AgentEvent): void {
  switch (event.type) {
    case 'run_started':
      run.agent = event.agent;
      run.model = event.model;
      if (event.pricing) run.pricing = event.pricing;
      // 0 in sessions written before it was said: unknown.
      if (event.max_turns > 0) run.maxTurns = event.max_turns;
      return;
    case 'turn_started':
      run.turns = d.own(run.turns);
      run.turns.push(newTurn(d, event.turn));
      return;
    case 'text_delta':
      turnOf(d, run).text += event.text;
      return;
    case 'thinking_delta':
      turnOf(d, run).thinking += event.text;
      return;
    case 'usage': {
      const turn = turnOf(d, run);
      turn.usage = addUsage(turn.usage ?? ZERO, event.turn);
      run.usage = event.total;
      if (event.turn_cost) turn.cost = addCost(turn.cost ?? NO_COST, event.turn_cost);
      if (event.total_cost) run.cost = event.total_cost;
      return;
    }
    case 'turn_finished': {
      const turn = turnOf(d, run, event.turn);
      turn.stop = event.stop_reason;
      // The call went through: its retry note no longer says "retrying".
      const retry = retryOf(turn.notices.at(-1));
      if (retry) {
        turn.notices = d.own(turn.notices);
        turn.notices[turn.notices.length - 1] = {
          kind: 'warning',
          message: `The model call went through on attempt ${retry.attempt} of ${retry.attempts}.`,
        };
      }
      return;
    }
    case 'warning':
      addNotice(d, run, { kind: 'warning', message: event.message, retry: event.retry });
      return;
    case 'loop_detected':
      addNotice(d, run, {
        kind: 'loop',
        loop: event.kind,
        repetitions: event.repetitions,
        action: event.action,
        detail: event.detail,
      });
      return;
    case 'error':
      addNotice(d, run, { kind: 'error', error: event.kind, message: event.message });
      return;
    case 'run_finished':
      run.usage = event.usage;
      run.end = { exit: event.exit, turns: event.turns, usage: event.usage, cost: event.cost };
      if (event.cost) run.cost = event.cost;
      closeOpenCards(d, run);
      return;
    case 'tool_call_started': {
      const card = cardOf(d, run, event.call.id, () => fromCall(event.call), 1);
      card.input ??= event.call.input;
      card.summary ||= event.summary;
      return;
    }
    case 'approval_requested': {
      const card = cardOf(d, run, event.call.id, () => fromCall(event.call), 1);
      card.input ??= event.call.input;
      // An external agent names a call better as it goes ("Preparing file…", then the path).
      card.summary = event.summary || card.summary;
      card.state = 'waiting';
      card.approval = {
        requestId: event.request_id,
        why: event.why || undefined,
        proposedRules: event.proposed_rules ?? [],
        rulesForAgent: event.rules_for_agent,
      };
      if (event.preview) card.preview = event.preview;
      return;
    }
    case 'approval_resolved': {
      const card = cardWhere(d, run, (c) => c.approval?.requestId === event.request_id);
      if (!card) return;
      card.approval = { ...card.approval, requestId: event.request_id, decision: event.decision };
      if (card.state === 'waiting') card.state = 'running';
      return;
    }
    case 'tool_call_finished': {
      const card = cardOf(
        d,
        run,
        event.id,
        () => ({ id: event.id, name: event.name, parsedFromText: false, state: 'running' }),
        RESULT_TURNS,
      );
      card.state = stateOf(event.status);
      card.status = event.status;
      card.summary = event.summary || card.summary;
      card.output = event.output;
      card.durationMs = event.duration_ms;
      if (event.why) card.why = event.why;
      if (event.changes) card.changes = event.changes;
      return;
    }
    case 'checkpoint_saved':
      // Turn 0 is "before the prompt"; it comes with the run's first recorded turn.
      if (event.turn === 0) run.checkpoint = event.checkpoint;
      else turnOf(d, run, event.turn).checkpoint = event.checkpoint;
      return;
    case 'run_changes':
      run.changes = { from: event.from, to: event.to, files: event.files };
      return;
    case 'plan':
      turnOf(d, run).plan = d.fresh({ items: event.items });
      return;
    case 'hook': {
      // Under the call it ran for; the others (prompt, start, stop) under the run.
      const { type, ...hook } = event;
      void type;
      if (hook.call_id === undefined) {
        run.hooks = run.hooks ? d.own(run.hooks) : d.fresh([]);
        run.hooks.push(hook);
        return;
      }
      const card = cardWhere(d, run, (c) => c.id === hook.call_id, RESULT_TURNS);
      if (!card) return;
      card.hooks = card.hooks ? d.own(card.hooks) : d.fresh([]);
      card.hooks.push(hook);
      return;
    }
    case 'connection': {
      // Under the call that made it; one of a call no longer in sight is dropped.
      const { type, ...connection } = event;
      void type;
      const card = cardWhere(d, run, (c) => c.id === connection.call_id, RESULT_TURNS);
      if (!card) return;
      card.connections = card.connections ? d.own(card.connections) : d.fresh([]);
      card.connections.push(connection);
      return;
    }
    case 'delegated': {
      const card = cardOf(
        d,
        run,
        event.call_id,
        () => ({ id: event.call_id, name: 'delegate_to_agent', parsedFromText: false, state: 'running' }),
        RESULT_TURNS,
      );
      const sub = card.delegated ?? { agent: event.agent, depth: event.depth, transcript: emptyTranscript() };
      card.delegated = { ...sub, transcript: apply(d, sub.transcript, event.event) };
      return;
    }
  }
}

/**
 * Marks what a rewind set aside: with the conversation rewound to prompt N, every later run,
 * and in run N either the whole run (turn 0) or its turns from `turn` on. An undo takes back
 * exactly the flags the undone rewind changed. A files-only rewind marks nothing.
 */
function applyRewind(d: Draft, t: Transcript, event: RewindInfo & { type: 'rewound' }): void {
  const { type, ...info } = event;
  void type;
  const marks: RewindMark[] = [];
  const set = (run: number, turn: number | undefined, value: boolean) => {
    const r = t.runs[run];
    if (!r) return;
    const was = (turn === undefined ? r.rewound : r.turns[turn]?.rewound) ?? false;
    if (was === value || (turn !== undefined && !r.turns[turn])) return;
    const w = d.own(r);
    t.runs[run] = w;
    // Unmarked means no flag at all, as before any rewind.
    const owner = turn === undefined ? w : turnAt(d, w, turn);
    if (value) owner.rewound = true;
    else delete owner.rewound;
    marks.push(turn === undefined ? { run, was } : { run, turn, was });
  };
  if (info.undoes !== undefined) {
    const undone = t.rewinds.find((r) => r.id === info.undoes);
    for (const m of [...(undone?.marks ?? [])].reverse()) set(m.run, m.turn, m.was);
  } else if (info.conversation) {
    const at = info.prompt - 1;
    for (let i = Math.max(at + 1, 0); i < t.runs.length; i++) set(i, undefined, true);
    const run = t.runs[at];
    if (run && info.turn === 0) set(at, undefined, true);
    else run?.turns.forEach((turn, i) => turn.n >= info.turn && set(at, i, true));
  }
  t.rewinds = d.own(t.rewinds);
  t.rewinds.push(d.fresh({ ...info, afterRun: t.runs.length - 1, marks }));
}

/**
 * Adds a compaction where it happened and marks the turns its summary replaced: walking back
 * from it, the last `kept_turns` turns still in the conversation stay (rewound and already
 * summarized turns are not in it, so they do not count), every earlier one is marked.
 */
function applyCompaction(d: Draft, t: Transcript, event: CompactionInfo & { type: 'compacted' }): void {
  const { type, ...info } = event;
  void type;
  const afterRun = t.runs.length - 1;
  const last = t.runs.at(-1);
  let beforeTurn: number | undefined;
  // Asked for between runs (or the run is over): it belongs to no run.
  if (info.reason !== 'asked' && last?.agent !== undefined && !last.end) {
    // The runner compacts after a turn started and before its model call answered.
    const current = last.turns.at(-1);
    beforeTurn = current && !begun(current) ? last.turns.length - 1 : last.turns.length;
  }
  const marks: CompactionMark[] = [];
  let kept = 0;
  for (let r = afterRun; r >= 0; r--) {
    const run = t.runs[r]!;
    if (run.rewound) continue;
    const end = r === afterRun && beforeTurn !== undefined ? beforeTurn : run.turns.length;
    for (let i = end - 1; i >= 0; i--) {
      const turn = t.runs[r]!.turns[i]!;
      if (turn.rewound || turn.summarized) continue;
      if (kept < info.kept_turns) {
        kept++;
        continue;
      }
      const w = d.own(t.runs[r]!);
      t.runs[r] = w;
      turnAt(d, w, i).summarized = true;
      marks.push({ run: r, turn: i });
    }
  }
  // Between runs no context event follows: the next request is the same instructions and
  // tools with the shorter conversation (the kernel's own estimate).
  const contextBefore = t.context;
  if (contextBefore) {
    t.context = d.fresh({
      ...contextBefore,
      history: info.after_tokens,
      used: contextBefore.instructions + contextBefore.tools + info.after_tokens,
    });
  }
  t.compactions = d.own(t.compactions);
  t.compactions.push(
    d.fresh({
      ...info,
      afterRun,
      ...(beforeTurn === undefined ? {} : { beforeTurn }),
      afterRewinds: t.rewinds.length,
      marks,
      ...(contextBefore ? { contextBefore, contextAfter: t.context } : {}),
    }),
  );
}

/** A turn whose model call has answered something (or ended). */
const begun = (turn: Turn) =>
  turn.stop !== undefined || turn.text !== '' || turn.thinking !== '' || turn.cards.length > 0;

/** Unmarks exactly what the compaction marked; the meter goes back if nothing measured since. */
function undoCompaction(d: Draft, t: Transcript, id: string): void {
  const at = t.compactions.findIndex((c) => c.id === id && !c.undone);
  if (at < 0) return;
  const c = t.compactions[at]!;
  for (const m of c.marks) {
    const run = t.runs[m.run];
    if (!run?.turns[m.turn]) continue;
    const w = d.own(run);
    t.runs[m.run] = w;
    // Unmarked means no flag at all, as before the compaction.
    delete turnAt(d, w, m.turn).summarized;
  }
  if (c.contextAfter && t.context === c.contextAfter) t.context = c.contextBefore;
  t.compactions = d.own(t.compactions);
  t.compactions[at] = d.fresh({ ...c, undone: true });
}

/** The card's state for how its call ended. */
export function stateOf(status: ToolStatus): CardState {
  if (status.kind === 'ok') return 'ok';
  if (status.kind === 'denied') return 'denied';
  return 'error';
}

function fromCall(call: ToolCall): ToolCard {
  return {
    id: call.id,
    name: call.name,
    input: call.input,
    parsedFromText: call.parsed_from_text === true,
    state: 'running',
  };
}

/** Turn `n` (default: the current, last one), writable, created when missing. */
function turnOf(d: Draft, run: Run, n?: number): Turn {
  run.turns = d.own(run.turns);
  const turns = run.turns;
  let at = n === undefined ? turns.length - 1 : turns.findLastIndex((t) => t.n === n);
  if (at < 0) {
    turns.push(newTurn(d, n ?? turns.length + 1));
    at = turns.length - 1;
  }
  return turnAt(d, run, at);
}

/** The turn at index `at`, writable. */
function turnAt(d: Draft, run: Run, at: number): Turn {
  run.turns = d.own(run.turns);
  const turn = d.own(run.turns[at]!);
  run.turns[at] = turn;
  return turn;
}

const retryOf = (n: Notice | undefined) => (n?.kind === 'warning' ? n.retry : undefined);

function addNotice(d: Draft, run: Run, notice: Notice): void {
  const owner = run.turns.length === 0 ? run : turnOf(d, run);
  owner.notices = d.own(owner.notices);
  // Retries of one call show as one line, the latest: not a box per attempt saying the same.
  const last = owner.notices.length - 1;
  const [next, prev] = [retryOf(notice), retryOf(owner.notices[last])];
  if (next && prev && prev.attempt < next.attempt) owner.notices[last] = notice;
  else owner.notices.push(notice);
}

/**
 * The card `id` of this run, writable; `create()` goes into the current turn when missing.
 * Only the last `turns` turns are searched: a call starts in the current turn, and its result
 * comes before the next turn ends. (Searching the whole run for an id not seen yet made a long
 * session's replay quadratic: 10,000 events took 400 ms.)
 */
function cardOf(
  d: Draft,
  run: Run,
  id: string,
  create: () => ToolCard,
  turns: number,
): ToolCard {
  const found = cardWhere(d, run, (c) => c.id === id, turns);
  if (found) return found;
  const turn = turnOf(d, run);
  turn.cards = d.own(turn.cards);
  const card = d.fresh(create());
  turn.cards.push(card);
  return card;
}

/** The latest card matching `test` in the last `turns` turns, writable. */
function cardWhere(
  d: Draft,
  run: Run,
  test: (c: ToolCard) => boolean,
  turns = Infinity,
): ToolCard | undefined {
  for (let i = run.turns.length - 1; i >= 0 && i >= run.turns.length - turns; i--) {
    const at = run.turns[i]!.cards.findIndex(test);
    if (at < 0) continue;
    const turn = turnAt(d, run, i);
    turn.cards = d.own(turn.cards);
    const card = d.own(turn.cards[at]!);
    turn.cards[at] = card;
    return card;
  }
  return undefined;
}

/** Nothing runs after the end: a card still open lost its result (e.g. cancelled). */
function closeOpenCards(d: Draft, run: Run): void {
  const open = (c: ToolCard) => c.state === 'running' || c.state === 'waiting';
  // One pass: a search per open card made ending a long run quadratic.
  run.turns.forEach((t, i) => {
    if (!t.cards.some(open)) return;
    const turn = turnAt(d, run, i);
    turn.cards = d.own(turn.cards);
    turn.cards.forEach((c, j) => {
      if (!open(c)) return;
      const card = d.own(c);
      turn.cards[j] = card;
      card.state = 'error';
      card.output ??= 'No result: the run ended first.';
    });
  });
}
