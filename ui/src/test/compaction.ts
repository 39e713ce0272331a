// Runs with context events and compactions shaped like the kernel's (runner.rs, room.rs,
// host compact.rs), for the reducer, replay and view tests of the meter and compaction.
import type { AgentEvent, CompactionInfo, ContextInfo, Message } from '../lib/bindings';
import type { TranscriptAction } from '../lib/transcript';
import { assistant, call, results, text, toolUse, usage, userText } from './events';
import { prompt } from './sessions';

export const context = (used: number, window: number | null = 200_000, instructions = 1_000, tools = 2_000): ContextInfo => ({
  used,
  ...(window === null ? {} : { window }),
  instructions,
  tools,
  history: used - instructions - tools,
});

export const contextEvent = (c: ContextInfo): AgentEvent => ({ type: 'context', ...c });

export const compacted = (over: Partial<CompactionInfo> = {}): AgentEvent => ({
  type: 'compacted',
  id: 'cp1',
  reason: 'asked',
  replaced: 45,
  kept_turns: 1,
  before_tokens: 12_300,
  after_tokens: 3_100,
  summary: 'The user asked for X; the agent did Y.',
  ...over,
});

export interface ChatRun {
  actions: TranscriptAction[];
  messages: Message[];
}

/**
 * A run of `turns` model calls as runner.rs emits it: each turn starts, says how full the
 * context is, answers; every turn but the last calls bash. `compactBefore` compacts (as the
 * runner does past the threshold) right after that turn started. `exit` ends it.
 */
export function chatRun(
  n: number,
  promptText: string,
  turns: number,
  opts: { maxTurns?: number; exit?: 'end_turn' | 'max_turns'; compactBefore?: { turn: number; info: Partial<CompactionInfo> } } = {},
): ChatRun {
  const { maxTurns = 100, exit = 'end_turn', compactBefore } = opts;
  const actions: TranscriptAction[] = [prompt(promptText), { type: 'run_started', agent: 'main', model: 'm1', max_turns: maxTurns }];
  const messages: Message[] = [userText(promptText)];
  let total = usage(0, 0);
  const add = (i: number, o: number) => {
    total = usage(total.input_tokens + i, total.output_tokens + o);
    return { type: 'usage', turn: usage(i, o), total } as const;
  };
  for (let t = 1; t <= turns; t++) {
    const used = 10_000 * n + 1_000 * t;
    actions.push({ type: 'turn_started', turn: t }, contextEvent(context(used)));
    if (compactBefore?.turn === t) {
      const info = compactBefore.info;
      actions.push(compacted({ reason: 'threshold', ...info }), add(500, 50), contextEvent(context(3_000 + (info.after_tokens ?? 3_100))));
    }
    const answer = `Run ${n}, turn ${t}.`;
    actions.push({ type: 'text_delta', text: answer }, add(100, 10));
    const last = t === turns && exit === 'end_turn';
    if (last) {
      actions.push({ type: 'turn_finished', turn: t, stop_reason: 'end_turn' });
      messages.push(assistant(text(answer)));
      continue;
    }
    const c = call(`r${n}t${t}`, 'bash', { command: `ls ${t}` });
    actions.push(
      { type: 'turn_finished', turn: t, stop_reason: 'tool_use' },
      { type: 'tool_call_started', summary: `ls ${t}`, call: c },
      { type: 'tool_call_finished', summary: `ls ${t}`, status: { kind: 'ok' }, id: c.id, name: 'bash', output: 'a b', is_error: false, duration_ms: 2 },
    );
    messages.push(assistant(text(answer), toolUse(c)), results([c.id, 'a b']));
  }
  actions.push({ type: 'run_finished', exit, turns, usage: total });
  return { actions, messages };
}

/** Runs one after another in a session. */
export function chatSession(...runs: ChatRun[]): ChatRun {
  return { actions: runs.flatMap((r) => r.actions), messages: runs.flatMap((r) => r.messages) };
}
