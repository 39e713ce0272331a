// Whole sessions as the kernel emits and stores them, shared by reducer and view tests.
import type { Message } from '../lib/bindings';
import type { TranscriptAction } from '../lib/transcript';
import { assistant, call, results, text, toolUse, usage, userText } from './events';

export const prompt = (t: string): TranscriptAction => ({ type: 'user_prompt', text: t });

// A run as runner.rs emits it: two tool calls (one behind an approval), then an answer.
export const write = call('c1', 'file_write', { path: 'hello.txt', content: 'hi' });
export const bash = call('c2', 'bash', { command: 'ls' });
export const toolRun: TranscriptAction[] = [
  prompt('Write hello.txt'),
  { type: 'run_started', agent: 'main', model: 'm1', max_turns: 100 },
  { type: 'turn_started', turn: 1 },
  { type: 'thinking_delta', text: 'Plan: ' },
  { type: 'thinking_delta', text: 'write, then list.' },
  { type: 'text_delta', text: "I'll " },
  { type: 'text_delta', text: 'write it.' },
  { type: 'usage', turn: usage(10, 5), total: usage(10, 5) },
  { type: 'turn_finished', turn: 1, stop_reason: 'tool_use' },
  { type: 'tool_call_started', summary: '', call: write },
  { type: 'tool_call_started', summary: '', call: bash },
  { type: 'approval_requested', summary: '', request_id: 'approval-1', call: bash },
  { type: 'tool_call_finished', summary: '', status: { kind: 'ok' }, id: 'c1', name: 'file_write', output: 'wrote 2 bytes', is_error: false, duration_ms: 4 },
  { type: 'approval_resolved', request_id: 'approval-1', decision: 'once' },
  { type: 'tool_call_finished', summary: '', status: { kind: 'ok' }, id: 'c2', name: 'bash', output: 'hello.txt', is_error: false, duration_ms: 31 },
  { type: 'turn_started', turn: 2 },
  { type: 'text_delta', text: 'Done.' },
  { type: 'usage', turn: usage(20, 3), total: usage(30, 8) },
  { type: 'turn_finished', turn: 2, stop_reason: 'end_turn' },
  { type: 'run_finished', exit: 'end_turn', turns: 2, usage: usage(30, 8) },
];
export const toolMessages: Message[] = [
  userText('Write hello.txt'),
  assistant(
    { type: 'thinking', thinking: 'Plan: write, then list.' },
    text("I'll write it."),
    toolUse(write),
    toolUse(bash),
  ),
  results(['c1', 'wrote 2 bytes'], ['c2', 'hello.txt']),
  assistant(text('Done.')),
];

// A second run in the same session whose model call fails half way.
export const errorRun: TranscriptAction[] = [
  prompt('And again'),
  { type: 'run_started', agent: 'main', model: 'm1', max_turns: 100 },
  { type: 'turn_started', turn: 1 },
  { type: 'text_delta', text: 'Part' },
  { type: 'usage', turn: usage(5, 1), total: usage(5, 1) },
  { type: 'error', kind: 'network', message: 'connection dropped' },
  { type: 'run_finished', exit: 'error', turns: 1, usage: usage(5, 1) },
];
export const errorMessages = [userText('And again'), assistant(text('Part'))];
