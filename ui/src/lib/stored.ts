// A stored session back into the transcript the live stream built. The session file keeps the
// messages and only the events worth keeping (no token deltas, no turn or tool-call starts),
// so this puts back what the live stream had, from the messages, and replays the result
// through the same reducer.
import type { AgentEvent, ContentBlock, Message, Omitted, ToolCall } from './bindings';
import { emptyTranscript, reduceAll, type Transcript, type TranscriptAction } from './transcript';
import { attachedIn, type Attached } from './attached';

/** Events between a turn's end and its tool calls: warnings, loop checks, the workspace's record. */
const BEFORE_CALLS = new Set<string | undefined>(['warning', 'loop_detected', 'checkpoint_saved']);

/**
 * The transcript of a stored session, as it looked when it ran. A session sent in part
 * (`omitted`: its start left out, up to a turn boundary) numbers its turns and prompts as the
 * whole session does.
 */
export function fromStored(messages: Message[], events: AgentEvent[], omitted?: Omitted | null): Transcript {
  const start = omitted ? { ...emptyTranscript(), omitted } : emptyTranscript();
  return fillResults(reduceAll(start, replayActions(messages, events, omitted?.turns ?? 0)), messages);
}

/**
 * The actions the live stream would have produced for this session; `firstTurns`: turns left
 * out at the start of its first run.
 */
export function replayActions(messages: Message[], events: AgentEvent[], firstTurns = 0): TranscriptAction[] {
  const groups = promptGroups(messages);
  const between = new Map<number, AgentEvent[]>();
  const runs = splitRuns(nestDelegated(events), between);
  const out: TranscriptAction[] = [];
  append(out, between.get(-1) ?? []);
  const count = Math.max(groups.length, runs.length);
  for (let i = 0; i < count; i++) {
    const group = groups[i];
    if (group) out.push({ type: 'user_prompt', text: group.prompt, ...(group.attached.length ? { attached: group.attached } : {}) });
    const run = runs[i];
    const offset = i === 0 ? firstTurns : 0;
    append(out, run ? rebuildRun(run, group?.replies ?? null, offset) : fromMessagesOnly(group?.replies ?? []));
    // A rewind or compaction stays where it happened: after its run, before the next prompt.
    append(out, between.get(i) ?? []);
  }
  return out;
}

/** Where message `index` shows: its prompt's run (0-based) and turn (0: the prompt itself). */
export function placeOfMessage(messages: Message[], index: number): { run: number; turn: number } | null {
  let run = -1;
  let turn = 0;
  for (let i = 0; i <= index && i < messages.length; i++) {
    const m = messages[i]!;
    if (isPrompt(m)) {
      run++;
      turn = 0;
    } else if (m.role === 'assistant') turn++;
    if (i === index) return run < 0 ? null : { run, turn };
  }
  return null;
}

/** A prompt is a user message with text and no tool results. */
const isPrompt = (m: Message) => m.role === 'user' && !m.content.some((b) => b.type === 'tool_result');

interface PromptGroup {
  prompt: string;
  attached: Attached[];
  /** The assistant messages that answered it, in order (one per model call). */
  replies: Message[];
}

function promptGroups(messages: Message[]): PromptGroup[] {
  const groups: PromptGroup[] = [];
  for (const m of messages) {
    if (isPrompt(m)) groups.push({ prompt: textOf(m.content), attached: attachedIn(m.content), replies: [] });
    else if (m.role === 'assistant') groups.at(-1)?.replies.push(m);
  }
  return groups;
}

function textOf(blocks: ContentBlock[]): string {
  return blocks
    .flatMap((b) => (b.type === 'text' ? [b.text] : []))
    .join('\n\n');
}

function callsOf(message: Message | undefined): ToolCall[] {
  return (message?.content ?? []).flatMap((b) =>
    b.type === 'tool_call'
      ? [{ id: b.id, name: b.name, input: b.input, parsed_from_text: b.parsed_from_text }]
      : [],
  );
}

/** What the model streamed for this message, as deltas. */
function deltas(message: Message | undefined): AgentEvent[] {
  return (message?.content ?? []).flatMap((b): AgentEvent[] => {
    if (b.type === 'text') return [{ type: 'text_delta', text: b.text }];
    if (b.type === 'thinking') return [{ type: 'thinking_delta', text: b.thinking }];
    return [];
  });
}

/** Events written between runs (rewinds, compactions asked for, their undos and edits). */
const betweenRuns = (e: AgentEvent) =>
  e.type === 'rewound' ||
  e.type === 'compaction_undone' ||
  e.type === 'compaction_edited' ||
  (e.type === 'compacted' && e.reason === 'asked');

/**
 * The events of each run, split at run_started. Rewinds and the like belong to no run: with
 * `between` they go there instead, under the index of the run they followed (-1: before any).
 */
function splitRuns(events: AgentEvent[], between?: Map<number, AgentEvent[]>): AgentEvent[][] {
  const runs: AgentEvent[][] = [];
  for (const e of events) {
    if (between && betweenRuns(e)) {
      const after = runs.length - 1;
      between.set(after, [...(between.get(after) ?? []), e]);
      continue;
    }
    if (e.type === 'run_started' || runs.length === 0) runs.push([]);
    runs.at(-1)!.push(e);
  }
  return runs;
}

/**
 * One run's events with the turn starts, deltas and tool-call starts put back. The kernel
 * emits, per turn: `context` right after the turn starts (sessions since it exists; a
 * compaction and another `context` may follow), usage of the model call, then
 * `turn_finished` (or, when the call failed or was stopped, that usage last before `error` /
 * `run_finished`), then warnings and loop checks, then the tools' events. `replies` is null
 * for a teammate's run (not stored).
 */
function rebuildRun(run: AgentEvent[], replies: Message[] | null, offset = 0): AgentEvent[] {
  const starts: number[] = [];
  /** The turn's first `context` after the previous turn's end, if any (from there on: linear). */
  const contextAfter = (from: number, to: number) => {
    for (let i = from + 1; i < to; i++) if (run[i]!.type === 'context') return i;
    return undefined;
  };
  let previous = -1;
  run.forEach((e, i) => {
    if (e.type !== 'turn_finished') return;
    starts.push(contextAfter(previous, i) ?? (run[i - 1]?.type === 'usage' ? i - 1 : i));
    previous = i;
  });
  const end = run.findLast((e) => e.type === 'run_finished');
  // `offset` turns were left out before these (the run's end counts them).
  const turns = end?.type === 'run_finished' ? end.turns - offset : Math.max(starts.length, replies?.length ?? 0);
  if (turns > starts.length) {
    // The last turn did not finish: it starts at its context, else its usage, else at the
    // error or the end.
    const lastFinished = run.findLastIndex((e) => e.type === 'turn_finished');
    let at = contextAfter(lastFinished, run.length) ?? run.findLastIndex((e, i) => i > lastFinished && e.type === 'usage');
    if (at < 0) {
      at = run.findIndex(
        (e, i) => i > lastFinished && (e.type === 'error' || e.type === 'run_finished'),
      );
    }
    starts.push(at < 0 ? run.length : at);
  }

  // Stored sessions keep no call starts: the summary comes from the call's result event.
  const summaries = new Map<string, string>();
  for (const e of run) if (e.type === 'tool_call_finished') summaries.set(e.id, e.summary);
  const out = run.slice(0, starts[0] ?? run.length);
  starts.forEach((start, t) => {
    const segment = run.slice(start, starts[t + 1] ?? run.length);
    const reply = replies?.[t];
    const end = segment.findIndex((e) => e.type === 'turn_finished');
    // The model answers after the context was measured (and compacted, if it was).
    let head = 0;
    segment.forEach((e, i) => {
      if ((end < 0 || i < end) && (e.type === 'context' || e.type === 'compacted')) head = i + 1;
    });
    out.push({ type: 'turn_started', turn: offset + t + 1 });
    append(out, segment.slice(0, head));
    append(out, deltas(reply));
    const terminated = segment.some((e) => e.type === 'loop_detected' && e.action === 'terminated');
    const calls = end >= 0 && !terminated ? callsOf(reply) : [];
    // Tool calls start after the turn's end and what comes before they run.
    let at = end + 1;
    while (at > 0 && BEFORE_CALLS.has(segment[at]?.type)) at++;
    at = Math.max(at, head);
    append(out, segment.slice(head, at));
    append(
      out,
      calls.map((call): AgentEvent => ({ type: 'tool_call_started', call, summary: summaries.get(call.id) ?? '' })),
    );
    append(out, segment.slice(at));
  });
  return out;
}

/** push(...items) without the argument limit: a teammate's run can be thousands of events. */
function append<T>(out: T[], items: readonly T[]): void {
  for (const item of items) out.push(item);
}

/**
 * Unwraps each delegation's events, rebuilds them as a run of their own (recursively) and
 * wraps them again, in place of the first of them.
 */
function nestDelegated(events: AgentEvent[]): AgentEvent[] {
  const byCall = new Map<string, { agent: string; depth: number; inner: AgentEvent[] }>();
  for (const e of events) {
    if (e.type !== 'delegated') continue;
    const entry = byCall.get(e.call_id) ?? { agent: e.agent, depth: e.depth, inner: [] };
    entry.inner.push(e.event);
    byCall.set(e.call_id, entry);
  }
  const out: AgentEvent[] = [];
  for (const e of events) {
    if (e.type !== 'delegated') {
      out.push(e);
      continue;
    }
    const entry = byCall.get(e.call_id);
    if (!entry) continue;
    byCall.delete(e.call_id);
    const inner = splitRuns(nestDelegated(entry.inner)).flatMap((run) => rebuildRun(run, null));
    for (const event of inner) {
      out.push({ type: 'delegated', agent: entry.agent, depth: entry.depth, call_id: e.call_id, event });
    }
  }
  return out;
}

/** A prompt whose events were lost: one turn per reply, with the calls it made. */
function fromMessagesOnly(replies: Message[]): AgentEvent[] {
  return replies.flatMap((reply, t): AgentEvent[] => [
    { type: 'turn_started', turn: t + 1 },
    ...deltas(reply),
    ...callsOf(reply).map((call): AgentEvent => ({ type: 'tool_call_started', call, summary: '' })),
  ]);
}

/** What a stored call with no result at all shows: Paddock stopped while it ran. */
export const NO_RESULT = 'No result was recorded: Paddock stopped before this call finished; it may or may not have run.';

/**
 * Cards without a result event take it from the messages (e.g. lost when Paddock stopped);
 * a call with no result anywhere was cut off, and does not show as running forever.
 */
function fillResults(state: Transcript, messages: Message[]): Transcript {
  const results = new Map<string, { content: string; is_error: boolean }>();
  for (const m of messages) {
    for (const b of m.content) if (b.type === 'tool_result') results.set(b.tool_call_id, b);
  }
  return {
    ...state,
    runs: state.runs.map((run) => ({
      ...run,
      turns: run.turns.map((turn) => ({
        ...turn,
        cards: turn.cards.map((card) => {
          const r = results.get(card.id);
          const cutOff = card.state === 'running' || card.state === 'waiting';
          if (!r) return cutOff && card.output === undefined ? { ...card, state: 'error', output: NO_RESULT } : card;
          if (card.output !== undefined) return card;
          return { ...card, state: r.is_error ? 'error' : 'ok', output: r.content };
        }),
      })),
    })),
  };
}
