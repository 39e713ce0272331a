// The only module that talks to the Tauri shell. Every command of docs/desktop-ipc.md has one
// typed function here; components import these, never `invoke`.
import { invoke, isTauri } from '@tauri-apps/api/core';
import type {
  AgentEvent,
  AppError,
  ApprovalDecision,
  Batch,
  CallExplanation,
  ConnectionReport,
  ExportFormat,
  FileChange,
  FilePreview,
  Grant,
  KeyStatus,
  McpServerConfig,
  McpServerStatus,
  ModelInfo,
  NotificationClick,
  ProjectInfo,
  ProjectInstructions,
  ProjectSettings,
  ProviderKind,
  RecentProject,
  RewindMode,
  RuleEntry,
  RewindPreview,
  RunStarted,
  SandboxStatus,
  SearchHit,
  SessionSummary,
  SessionTranscript,
  ToolGrantInfo,
  ToolPreset,
  ToolProbeReport,
  WorkspaceChange,
  WorkspaceTree,
} from './bindings';

const NO_BACKEND: AppError = {
  code: 'internal',
  message:
    'The Paddock backend is not reachable: this page only works inside the Paddock app ' +
    '(cargo tauri dev), not in a plain browser.',
};

/** Any rejection from a command, as the one error shape the UI shows. */
export function toAppError(err: unknown): AppError {
  if (err && typeof err === 'object' && 'code' in err && 'message' in err) {
    const { code, message } = err as AppError;
    return { code, message: String(message) };
  }
  // Tauri's own failures (unknown command, bad arguments) arrive as plain strings.
  return { code: 'internal', message: err instanceof Error ? err.message : String(err) };
}

async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  if (!isTauri()) throw NO_BACKEND;
  try {
    return await invoke<T>(command, args);
  } catch (err) {
    throw toAppError(err);
  }
}

// Projects and windows
export const recentProjects = () => call<RecentProject[]>('recent_projects');
export const pickProjectFolder = () => call<string | null>('pick_project_folder');
export const openProject = (path: string) => call<ProjectInfo>('open_project', { path });
/** Focuses the project picker, or opens it again (it closes once it has opened a project). */
export const showPicker = () => call<null>('show_picker');
export const projectInfo = (project: string) => call<ProjectInfo>('project_info', { project });
export const saveSettings = (project: string, settings: ProjectSettings) =>
  call<ProjectInfo>('save_settings', { project, settings });
/** Trusts what the folder's settings ask for (as `info.trust.pending` listed it). */
export const trustProject = (project: string) => call<ProjectInfo>('trust_project', { project });
/** Opens the folder without its pending settings; asked again only when they change. */
export const declineTrust = (project: string) => call<ProjectInfo>('decline_trust', { project });
/** Takes back the trust given to the folder's settings; the trust screen asks again. */
export const revokeTrust = (project: string) => call<ProjectInfo>('revoke_trust', { project });

// Grants
export const toolGrants = (project: string) => call<ToolGrantInfo[]>('tool_grants', { project });
export const setToolGrant = (project: string, tool: string, grant: Grant | null) =>
  call<ToolGrantInfo[]>('set_tool_grant', { project, tool, grant });
export const setPreset = (project: string, preset: ToolPreset | null) =>
  call<ToolGrantInfo[]>('set_preset', { project, preset });
export const mcpStatus = (project: string) => call<McpServerStatus[]>('mcp_status', { project });
/** Replaces one tool's argument rules, in order (`[]` removes them). */
export const setToolRules = (project: string, tool: string, rules: RuleEntry[]) =>
  call<ToolGrantInfo[]>('set_tool_rules', { project, tool, rules });
/** Adds an MCP server the user described (theirs: trusted). */
export const addMcpServer = (project: string, name: string, config: McpServerConfig) =>
  call<null>('add_mcp_server', { project, name, config });
/** Imports pasted MCP entries, or the project's own .mcp.json when `text` is null; they wait for trust. */
export const importMcpServers = (project: string, text: string | null) =>
  call<string[]>('import_mcp_servers', { project, text });
/** Stores (or with null removes) the keychain value an MCP server's `${name}` reads. */
export const setMcpValue = (name: string, value: string | null) =>
  call<null>('set_mcp_value', { name, value });
/** What the grants and rules would do with a call (a command, a path, or JSON); runs nothing. */
export const explainCall = (project: string, tool: string, callText: string) =>
  call<CallExplanation>('explain_call', { project, tool, call: callText });

/** The model for the project's next prompts (saved to its settings). */
export const setModel = (project: string, model: string) => call<ProjectInfo>('set_model', { project, model });

// Providers and keys
export const keyStatus = (provider: ProviderKind) => call<KeyStatus>('key_status', { provider });
export const setApiKey = (provider: ProviderKind, key: string) =>
  call<KeyStatus>('set_api_key', { provider, key });
export const deleteApiKey = (provider: ProviderKind) =>
  call<KeyStatus>('delete_api_key', { provider });
export const listModels = (provider: ProviderKind, baseUrl: string | null) =>
  call<ModelInfo[]>('list_models', { provider, baseUrl });
export const testConnection = (
  provider: ProviderKind,
  baseUrl: string | null,
  model: string | null,
) => call<ConnectionReport>('test_connection', { provider, baseUrl, model });

export const testToolCalling = (provider: ProviderKind, baseUrl: string | null, model: string) =>
  call<ToolProbeReport>('test_tool_calling', { provider, baseUrl, model });

/** Opens an http(s) or mailto address in the system browser (the shell checks the scheme). */
export const openLink = (url: string) => call<null>('open_link', { url });

// Runs and sessions
/** Starts a run and resolves with its session id; the run's events then reach `onEvent`, in
 * order, until its `run_finished`. */
export async function sendPrompt(
  project: string,
  sessionId: string | null,
  prompt: string,
  onEvent: (event: AgentEvent) => void,
): Promise<string> {
  const started = await call<RunStarted>('send_prompt', { project, sessionId, prompt });
  void follow('next_run_events', started.feed, onEvent);
  return started.session_id;
}
export const stopRun = (project: string, sessionId: string) =>
  call<null>('stop_run', { project, sessionId });
export const approve = (
  project: string,
  sessionId: string,
  requestId: string,
  decision: ApprovalDecision,
) => call<null>('approve', { project, sessionId, requestId, decision });
/** "Always allow": saves these allow rules for `tool` and lets the waiting call run once. */
export const alwaysAllow = (
  project: string,
  sessionId: string,
  requestId: string,
  tool: string,
  patterns: string[],
) => call<null>('always_allow', { project, sessionId, requestId, tool, patterns });
export const listSessions = (project: string) =>
  call<SessionSummary[]>('list_sessions', { project });
export const searchSessions = (project: string, query: string) =>
  call<SearchHit[]>('search_sessions', { project, query });
/** The session whole, or with `tail` its last turns (at least that many; `omitted` says what
 * was left out). */
export const loadSession = (project: string, sessionId: string, tail?: number) =>
  call<SessionTranscript>('load_session', { project, sessionId, tail: tail ?? null });
export const deleteSession = (project: string, sessionId: string) =>
  call<null>('delete_session', { project, sessionId });
export const exportSession = (project: string, sessionId: string, format: ExportFormat) =>
  call<string | null>('export_session', { project, sessionId, format });

// Changes and rewinds
/** One file's change between two checkpoints of the session; null when it did not change. */
export const checkpointDiff = (
  project: string,
  sessionId: string,
  from: string,
  to: string,
  path: string,
) => call<FileChange | null>('checkpoint_diff', { project, sessionId, from, to, path });
/** What rewinding to before prompt `prompt` (1-based), turn `turn` (0: the prompt) would do. */
export const rewindPreview = (
  project: string,
  sessionId: string,
  prompt: number,
  turn: number,
  mode: RewindMode,
) => call<RewindPreview>('rewind_preview', { project, sessionId, prompt, turn, mode });
/** Rewinds; returns the session as it now reads. */
export const rewindSession = (
  project: string,
  sessionId: string,
  prompt: number,
  turn: number,
  mode: RewindMode,
) => call<SessionTranscript>('rewind_session', { project, sessionId, prompt, turn, mode });
/** Undoes the session's last rewind; returns the session as it now reads. */
export const undoRewind = (project: string, sessionId: string) =>
  call<SessionTranscript>('undo_rewind', { project, sessionId });

// Compaction and instructions
/** Has the model summarize the start of the conversation; returns the session as it now reads. */
export const compactSession = (project: string, sessionId: string) =>
  call<SessionTranscript>('compact_session', { project, sessionId });
/** Undoes the session's latest compaction; returns the session as it now reads. */
export const undoCompaction = (project: string, sessionId: string) =>
  call<SessionTranscript>('undo_compaction', { project, sessionId });
/** Replaces the latest compaction's summary (`id`); returns the session as it now reads. */
export const editCompaction = (project: string, sessionId: string, id: string, summary: string) =>
  call<SessionTranscript>('edit_compaction', { project, sessionId, id, summary });
/** The project's AGENTS.md (or CLAUDE.md) as the agent is given it, and notices about it. */
export const projectInstructions = (project: string) =>
  call<ProjectInstructions>('project_instructions', { project });

// Workspace
export const workspaceTree = (project: string) =>
  call<WorkspaceTree>('workspace_tree', { project });
export const readWorkspaceFile = (project: string, path: string) =>
  call<FilePreview>('read_workspace_file', { project, path });
/** Starts (or replaces) this window's watcher; `onChange` gets debounced batches. */
export async function watchWorkspace(
  project: string,
  onChange: (change: WorkspaceChange) => void,
): Promise<void> {
  const feed = await call<number>('watch_workspace', { project });
  void follow('next_workspace_changes', feed, onChange);
}

/**
 * Hands every item of one of the shell's feeds to `onItem`, in order, asking for the next
 * batch until the feed is done. Asking, rather than a Tauri channel, keeps the app process
 * from evaluating a script in the page per item: see src-tauri/src/feed.rs.
 */
async function follow<T>(command: string, feed: number, onItem: (item: T) => void): Promise<void> {
  for (;;) {
    // A failed ask ends it: the shell is gone, and asking again would only spin.
    const batch = await call<Batch<T>>(command, { feed }).catch(() => null);
    if (!batch) return;
    for (const item of batch.items) onItem(item);
    if (batch.done) return;
  }
}

/** Calls `onCall` with the call id when one of this window's notifications is clicked ('' for
 * a finished run); returns a function that stops listening. It asks the shell for each click
 * in turn rather than taking a Tauri event: see src-tauri/src/notify.rs. */
export function onNotificationClick(onCall: (callId: string) => void): () => void {
  if (!isTauri()) return () => {};
  let stopped = false;
  void (async () => {
    let after: number | null = null;
    while (!stopped) {
      const click: NotificationClick | null = await call<NotificationClick | null>('next_notification_click', {
        after,
      }).catch(() => null);
      // Null: the window is closing (or the shell failed; asking again would only spin).
      if (!click || stopped) return;
      after = click.seq;
      onCall(click.call_id);
    }
  })();
  return () => {
    stopped = true;
  };
}
export const sandboxStatus = (project: string) =>
  call<SandboxStatus>('sandbox_status', { project });
