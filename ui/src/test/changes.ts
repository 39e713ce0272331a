// File changes, checkpoints and rewinds shaped like the Rust side's (paddock-changes, runner.rs),
// for the reducer, replay and view tests of diffs and rewinds.
import type {
  AgentEvent,
  ChangeSummary,
  DiffHunk,
  DiffLine,
  FileChange,
  LineEnd,
  LineOp,
  Message,
  RewindInfo,
  SessionTranscript,
} from '../lib/bindings';
import type { TranscriptAction } from '../lib/transcript';
import { assistant, call, results, text, toolUse, usage, userText } from './events';
import { prompt } from './sessions';

export const WORKSPACE = '/home/u/proj/.agent-workspace';

export const line = (op: LineOp, t: string, end?: LineEnd): DiffLine => (end ? { op, text: t, end } : { op, text: t });

export const hunk = (old_start: number, new_start: number, lines: DiffLine[]): DiffHunk => ({
  old_start,
  old_lines: lines.filter((l) => l.op !== 'added').length,
  new_start,
  new_lines: lines.filter((l) => l.op !== 'removed').length,
  lines,
});

export const textChange = (path: string, hunks: DiffHunk[], kind: FileChange['kind'] = 'modified'): FileChange => ({
  path,
  kind,
  added: hunks.flatMap((h) => h.lines).filter((l) => l.op === 'added').length,
  removed: hunks.flatMap((h) => h.lines).filter((l) => l.op === 'removed').length,
  diff: { kind: 'text', hunks },
});

/** One line changed at line 8, in a hunk starting at line 7. */
export const edit = textChange('src/app.ts', [
  hunk(7, 7, [
    line('context', 'const a = 1;'),
    line('removed', 'const b = 2;'),
    line('added', 'const b = 3;'),
    line('context', 'export { a, b };'),
  ]),
]);

export const summaryOf = (c: FileChange): ChangeSummary => ({
  path: c.path,
  kind: c.kind,
  added: c.added,
  removed: c.removed,
  lines_counted: c.diff.kind === 'text',
});

export const rewound = (over: Partial<RewindInfo> = {}): AgentEvent => ({
  type: 'rewound',
  id: 'rw1',
  prompt: 1,
  turn: 0,
  files: true,
  conversation: true,
  messages: 0,
  before: 'ck-before',
  workspace: WORKSPACE,
  changed: [],
  ...over,
});

/**
 * A run as runner.rs emits it with a recorder: turn 1 edits a file (checkpoints for "before
 * the prompt" and "before turn 1's tools" come after the turn's end, before the call starts),
 * turn 2 answers, the run's changes come before its end. `before` is how many messages the
 * conversation had when the prompt came.
 */
export function editRun(n: number, promptText: string, before: number): { actions: TranscriptAction[]; messages: Message[] } {
  const c = call(`w${n}`, 'file_edit', { path: edit.path, old: 'const b = 2;', new: 'const b = 3;' });
  const actions: TranscriptAction[] = [
    prompt(promptText),
    { type: 'run_started', agent: 'main', model: 'm1', max_turns: 100 },
    { type: 'turn_started', turn: 1 },
    { type: 'text_delta', text: `Editing ${n}.` },
    { type: 'usage', turn: usage(10, 2), total: usage(10, 2) },
    { type: 'turn_finished', turn: 1, stop_reason: 'tool_use' },
    { type: 'checkpoint_saved', checkpoint: `ck${n}-0`, workspace: WORKSPACE, turn: 0, messages: before },
    { type: 'checkpoint_saved', checkpoint: `ck${n}-1`, workspace: WORKSPACE, turn: 1, messages: before + 1 },
    { type: 'tool_call_started', summary: edit.path, call: c },
    { type: 'tool_call_finished', summary: edit.path, status: { kind: 'ok' }, id: c.id, name: c.name, output: 'edited', is_error: false, duration_ms: 3, changes: [edit] },
    { type: 'turn_started', turn: 2 },
    { type: 'text_delta', text: `Done ${n}.` },
    { type: 'usage', turn: usage(20, 1), total: usage(30, 3) },
    { type: 'turn_finished', turn: 2, stop_reason: 'end_turn' },
    { type: 'run_changes', from: `ck${n}-0`, to: `ck${n}-end`, files: [summaryOf(edit)] },
    { type: 'run_finished', exit: 'end_turn', turns: 2, usage: usage(30, 3) },
  ];
  const messages = [
    userText(promptText),
    assistant(text(`Editing ${n}.`), toolUse(c)),
    results([c.id, 'edited']),
    assistant(text(`Done ${n}.`)),
  ];
  return { actions, messages };
}

/** Several edit runs in one session: the live actions and the messages the file keeps. */
export function editSession(...prompts: string[]): { actions: TranscriptAction[]; messages: Message[] } {
  const runs = prompts.map((p, i) => editRun(i + 1, p, i * 4));
  return { actions: runs.flatMap((r) => r.actions), messages: runs.flatMap((r) => r.messages) };
}

/** What load_session (and rewind_session, undo_rewind) return for such a session. */
export function stored(messages: Message[], events: AgentEvent[]): SessionTranscript {
  return {
    header: { format: 1, id: 's1', project: '/p', model: 'm1', created: '2025-01-01T00:00:00Z', title: 'x' },
    messages,
    events,
    warnings: [],
  };
}
