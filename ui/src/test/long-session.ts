// A long stored session (one tool call per turn) for the replay benchmark.
import type { AgentEvent, Message } from '../lib/bindings';
import { assistant, call, kept, results, text, toolUse, usage, userText } from './events';

/** A session whose live stream had about `liveEvents` events, as the file keeps it. */
export function longSession(liveEvents: number): { messages: Message[]; events: AgentEvent[] } {
  const live: AgentEvent[] = [{ type: 'run_started', agent: 'main', model: 'm', max_turns: 100 }];
  const messages: Message[] = [userText('go')];
  let turn = 0;
  while (live.length < liveEvents) {
    turn++;
    const c = call(`c${turn}`, 'file_read', { path: `src/file${turn}.rs` });
    const out = `fn f${turn}() {}\n`.repeat(10);
    live.push(
      { type: 'turn_started', turn },
      { type: 'context', used: 3_000 + 150 * turn, window: 200_000, instructions: 1_000, tools: 2_000, history: 150 * turn },
      { type: 'text_delta', text: `Reading **file ${turn}**. ` },
      { type: 'usage', turn: usage(100, 10), total: usage(100 * turn, 10 * turn) },
      { type: 'turn_finished', turn, stop_reason: 'tool_use' },
      { type: 'tool_call_started', summary: '', call: c },
      { type: 'tool_call_finished', summary: '', status: { kind: 'ok' }, id: c.id, name: c.name, output: out, is_error: false, duration_ms: 2 },
    );
    messages.push(assistant(text(`Reading **file ${turn}**. `), toolUse(c)), results([c.id, out]));
  }
  live.push({ type: 'run_finished', exit: 'max_turns', turns: turn, usage: usage(100 * turn, 10 * turn) });
  return { messages, events: kept(live) };
}
