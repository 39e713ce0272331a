// The transcript as the UI shows it, built by a pure reducer over the run's events. The live
// stream and a stored session (see stored.ts) go through the same `reduce`, so both render
// the same way.
import type {
  AgentEvent,
  ApprovalDecision,
  ErrorKind,
  ExitReason,
  LoopAction,
  LoopKind,
  StopReason,
  TokenUsage,
  ToolCall,
} from './bindings';

export type CardState = 'running' | 'waiting' | 'ok' | 'error';

export interface Approval {
  requestId: string;
  /** Set once the request was answered. */
  decision?: ApprovalDecision;
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
  state: CardState;
  output?: string;
  durationMs?: number;
  approval?: Approval;
  delegated?: DelegatedRun;
}

export type Notice =
  | { kind: 'warning'; message: string }
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
}

export interface RunEnd {
  exit: ExitReason;
  turns: number;
  usage: TokenUsage;
}

export interface Run {
  prompt?: string;
  agent?: string;
  model?: string;
  /** Notices that came before the first turn. */
  notices: Notice[];
  turns: Turn[];
  /** The run's total so far. */
  usage: TokenUsage;
  end?: RunEnd;
}

export interface Transcript {
  runs: Run[];
}

/** A user prompt is not an agent event: the UI adds it when it sends one. */
export type TranscriptAction = AgentEvent | { type: 'user_prompt'; text: string };

export const emptyTranscript = (): Transcript => ({ runs: [] });

const ZERO: TokenUsage = { input_tokens: 0, output_tokens: 0 };

const newRun = (prompt?: string): Run => ({ prompt, notices: [], turns: [], usage: ZERO });

const newTurn = (n: number): Turn => ({ n, thinking: '', text: '', cards: [], notices: [] });

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
  };
}

/** The whole session's usage: every run's total. */
export function totalUsage(t: Transcript): TokenUsage {
  return t.runs.reduce((sum, run) => addUsage(sum, run.end?.usage ?? run.usage), ZERO);
}

/** True while the last run has not finished. */
export function isRunning(t: Transcript): boolean {
  const last = t.runs.at(-1);
  return last !== undefined && last.agent !== undefined && last.end === undefined;
}

export function reduce(state: Transcript, action: TranscriptAction): Transcript {
  if (action.type === 'user_prompt') {
    return { runs: [...state.runs, newRun(action.text)] };
  }
  const event = action;
  if (event.type === 'run_started') {
    const last = state.runs.at(-1);
    // The run the UI opened with the prompt, or a new one.
    if (last && last.agent === undefined && last.turns.length === 0 && !last.end) {
      return withLastRun(state, { ...last, agent: event.agent, model: event.model });
    }
    return { runs: [...state.runs, { ...newRun(), agent: event.agent, model: event.model }] };
  }
  const run = state.runs.at(-1) ?? newRun();
  return withLastRun(state, reduceRun(run, event));
}

function withLastRun(state: Transcript, run: Run): Transcript {
  const runs = state.runs.length ? state.runs.slice(0, -1) : [];
  runs.push(run);
  return { runs };
}

function reduceRun(run: Run, event: AgentEvent): Run {
  switch (event.type) {
    case 'run_started':
      return run; // handled by `reduce`
    case 'turn_started':
      return { ...run, turns: [...run.turns, newTurn(event.turn)] };
    case 'text_delta':
      return updateTurn(run, (t) => ({ ...t, text: t.text + event.text }));
    case 'thinking_delta':
      return updateTurn(run, (t) => ({ ...t, thinking: t.thinking + event.text }));
    case 'usage':
      return {
        ...updateTurn(run, (t) => ({ ...t, usage: addUsage(t.usage ?? ZERO, event.turn) })),
        usage: event.total,
      };
    case 'turn_finished':
      return updateTurn(run, (t) => ({ ...t, stop: event.stop_reason }), event.turn);
    case 'warning':
      return addNotice(run, { kind: 'warning', message: event.message });
    case 'loop_detected':
      return addNotice(run, {
        kind: 'loop',
        loop: event.kind,
        repetitions: event.repetitions,
        action: event.action,
        detail: event.detail,
      });
    case 'error':
      return addNotice(run, { kind: 'error', error: event.kind, message: event.message });
    case 'run_finished':
      return {
        ...run,
        usage: event.usage,
        end: { exit: event.exit, turns: event.turns, usage: event.usage },
        // Nothing runs after the end: a card still open lost its result (e.g. cancelled).
        turns: run.turns.map(closeOpenCards),
      };
    case 'tool_call_started':
      return upsertCard(run, event.call.id, (c) => ({ ...fromCall(event.call), ...c }), () =>
        fromCall(event.call),
      );
    case 'approval_requested': {
      const approval = { requestId: event.request_id };
      return upsertCard(
        run,
        event.call.id,
        (c) => ({ ...c, input: c.input ?? event.call.input, state: 'waiting', approval }),
        () => ({ ...fromCall(event.call), state: 'waiting', approval }),
      );
    }
    case 'approval_resolved':
      return mapCards(run, (c) =>
        c.approval?.requestId === event.request_id
          ? {
              ...c,
              approval: { ...c.approval, decision: event.decision },
              state: c.state === 'waiting' ? 'running' : c.state,
            }
          : c,
      );
    case 'tool_call_finished': {
      const done = (c: ToolCard): ToolCard => ({
        ...c,
        state: event.is_error ? 'error' : 'ok',
        output: event.output,
        durationMs: event.duration_ms,
      });
      return upsertCard(run, event.id, done, () =>
        done({ id: event.id, name: event.name, parsedFromText: false, state: 'running' }),
      );
    }
    case 'delegated': {
      const nest = (c: ToolCard): ToolCard => {
        const sub = c.delegated ?? {
          agent: event.agent,
          depth: event.depth,
          transcript: emptyTranscript(),
        };
        return { ...c, delegated: { ...sub, transcript: reduce(sub.transcript, event.event) } };
      };
      return upsertCard(run, event.call_id, nest, () =>
        nest({
          id: event.call_id,
          name: 'delegate_to_agent',
          parsedFromText: false,
          state: 'running',
        }),
      );
    }
  }
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

function closeOpenCards(turn: Turn): Turn {
  if (!turn.cards.some((c) => c.state === 'running' || c.state === 'waiting')) return turn;
  return {
    ...turn,
    cards: turn.cards.map((c) =>
      c.state === 'running' || c.state === 'waiting'
        ? { ...c, state: 'error', output: c.output ?? 'No result: the run ended first.' }
        : c,
    ),
  };
}

/** Applies `f` to turn `n` (default: the current, last turn), creating it when missing. */
function updateTurn(run: Run, f: (t: Turn) => Turn, n?: number): Run {
  const turns = run.turns.slice();
  let at = n === undefined ? turns.length - 1 : turns.findIndex((t) => t.n === n);
  if (at < 0) {
    turns.push(newTurn(n ?? turns.length + 1));
    at = turns.length - 1;
  }
  turns[at] = f(turns[at]!);
  return { ...run, turns };
}

function addNotice(run: Run, notice: Notice): Run {
  if (run.turns.length === 0) return { ...run, notices: [...run.notices, notice] };
  return updateTurn(run, (t) => ({ ...t, notices: [...t.notices, notice] }));
}

/** Updates the card `id` of this run, or adds `create()` to the current turn. */
function upsertCard(
  run: Run,
  id: string,
  update: (c: ToolCard) => ToolCard,
  create: () => ToolCard,
): Run {
  for (let i = run.turns.length - 1; i >= 0; i--) {
    const turn = run.turns[i]!;
    const at = turn.cards.findIndex((c) => c.id === id);
    if (at >= 0) {
      const cards = turn.cards.slice();
      cards[at] = update(cards[at]!);
      const turns = run.turns.slice();
      turns[i] = { ...turn, cards };
      return { ...run, turns };
    }
  }
  return updateTurn(run, (t) => ({ ...t, cards: [...t.cards, create()] }));
}

function mapCards(run: Run, f: (c: ToolCard) => ToolCard): Run {
  return {
    ...run,
    turns: run.turns.map((t) => {
      const cards = t.cards.map(f);
      return cards.every((c, i) => c === t.cards[i]) ? t : { ...t, cards };
    }),
  };
}
