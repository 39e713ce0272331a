// Generated from src-tauri/src/commands.rs by the desktop's `contract` test. Do not edit:
// PADDOCK_UPDATE_GENERATED=1 cargo test -p paddock-desktop --test it contract
import type { AboutInfo, AgentEvent, ApprovalDecision, Batch, BranchList, CallExplanation, CheckpointStatus, ConnectionReport, ExpandedPrompt, ExportFormat, ExternalAgentConfig, ExternalAgentInfo, ExternalAgentWall, FileChange, FilePreview, Grant, HookInfo, KeyStatus, KnownAgent, McpServerConfig, McpServerStatus, MentionCandidate, ModelInfo, NetworkSettings, NetworkView, NotificationClick, ProjectInfo, ProjectInstructions, ProjectSettings, PromptInput, ProviderKind, RecentProject, RewindMode, RewindPreview, RuleEntry, RunStarted, SandboxStatus, SavedPrompt, SearchHit, SessionSummary, SessionTranscript, ToolGrantInfo, ToolPreset, ToolProbeReport, UpdateCheck, WorkspaceChange, WorkspaceTree, WorktreeChanges, WorktreeCreated, WorktreeInfo, WorktreeLanded, WorktreeLanding } from './bindings';
import { invokeCommand } from './invoke';

/** Recently opened projects, newest first; stored in the app data dir (no secrets); `last_opened` in the machine's local offset. */
export const recentProjects = () =>
  invokeCommand<Array<RecentProject>>('recent_projects');

/** The native folder dialog, run from Rust; null when cancelled. */
export const pickProjectFolder = () =>
  invokeCommand<string | null>('pick_project_folder');

/** One window per project (focused if open, else opened at `index.html?project=<path>`); adds to recents, closes the picker; finishes a crash-cut rewind, starts trusted MCP servers and the first checkpoint in the background (`checkpoint_status`). */
export const openProject = (path: string) =>
  invokeCommand<ProjectInfo>('open_project', { path });

/** Focuses the picker window, or opens it again (a project window's "Open project…"). */
export const showPicker = () =>
  invokeCommand<null>('show_picker');

/** Settings as written (or `settings_error` when the file is broken), workspace root and sandbox status as they apply, `trust` (what waits for the user's trust). */
export const projectInfo = (project: string) =>
  invokeCommand<ProjectInfo>('project_info', { project });

/** Validated, atomic; refuses to overwrite a broken file; the fields the user changed are trusted. The workspace mode switch is this with `settings.workspace` changed. */
export const saveSettings = (project: string, settings: ProjectSettings) =>
  invokeCommand<ProjectInfo>('save_settings', { project, settings });

/** Trusts every gated field as the settings stand; the trusted MCP servers start and the rules apply. */
export const trustProject = (project: string) =>
  invokeCommand<ProjectInfo>('trust_project', { project });

/** Opens without the pending fields; not asked again until they change. */
export const declineTrust = (project: string) =>
  invokeCommand<ProjectInfo>('decline_trust', { project });

/** Takes back the trust given to the folder's settings: what needed it stops applying (MCP servers it started stop) and the trust screen asks again. */
export const revokeTrust = (project: string) =>
  invokeCommand<ProjectInfo>('revoke_trust', { project });

/** The composer's model picker: saved as the project's `model` (the user's change); the next prompt, in any session, uses it. */
export const setModel = (project: string, model: string) =>
  invokeCommand<ProjectInfo>('set_model', { project, model });

/** Built-ins, `delegate_to_agent` with teammates, MCP tools (`mcp__<server>__<tool>`); each with its grant and reason under the settings in effect. */
export const toolGrants = (project: string) =>
  invokeCommand<Array<ToolGrantInfo>>('tool_grants', { project });

/** `null` removes the override (back to the preset); saved to the settings at once (the user's change, trusted). */
export const setToolGrant = (project: string, tool: string, grant: Grant | null) =>
  invokeCommand<Array<ToolGrantInfo>>('set_tool_grant', { project, tool, grant });

/** Sets (or with `null` removes) the preset; saved at once. */
export const setPreset = (project: string, preset: ToolPreset | null) =>
  invokeCommand<Array<ToolGrantInfo>>('set_preset', { project, preset });

/** Replaces the tool's rules in order (`[]`: none); `invalid` names `rules.<tool>[i]`; trusted; runs going on apply them at their next call. */
export const setToolRules = (project: string, tool: string, rules: Array<RuleEntry>) =>
  invokeCommand<Array<ToolGrantInfo>>('set_tool_rules', { project, tool, rules });

/** What the grants and rules would do with the call (a command, a path, JSON), and why. */
export const explainCall = (project: string, tool: string, call: string) =>
  invokeCommand<CallExplanation>('explain_call', { project, tool, call });

/** "Always allow": saves the (edited) proposed rules as trusted, applies them, approves once. */
export const alwaysAllow = (project: string, sessionId: string, requestId: string, tool: string, patterns: Array<string>) =>
  invokeCommand<null>('always_allow', { project, sessionId, requestId, tool, patterns });

/** The grants screen's Network section (`host::network::view`). */
export const networkView = (project: string) =>
  invokeCommand<NetworkView>('network_view', { project });

/** Replaces the `network` setting (trusted; `invalid` names `network.<list>[i]`). */
export const setNetwork = (project: string, network: NetworkSettings) =>
  invokeCommand<NetworkView>('set_network', { project, network });

/** The user's hooks and the project's, each with its source and whether it waits for trust. */
export const hookList = (project: string) =>
  invokeCommand<Array<HookInfo>>('hook_list', { project });

/** The external ACP agents the user added (`agents.json` in the config folder). */
export const listAgents = () =>
  invokeCommand<Array<ExternalAgentInfo>>('list_agents');

/** The agents Paddock knows how to run, each with whether it is installed ("Add agent"). */
export const knownAgents = () =>
  invokeCommand<Array<KnownAgent>>('known_agents');

/** Adds (with `replace`, replaces) an agent in the user's `agents.json`; the list after. */
export const saveAgent = (name: string, config: ExternalAgentConfig, replace: boolean) =>
  invokeCommand<Array<ExternalAgentInfo>>('save_agent', { name, config, replace });

/** Removes an agent from `agents.json` (its sessions stay); the list after. */
export const removeAgent = (name: string) =>
  invokeCommand<Array<ExternalAgentInfo>>('remove_agent', { name });

/** What the wall around each external agent enforces in the project (the Sandbox screen). */
export const agentWalls = (project: string) =>
  invokeCommand<Array<ExternalAgentWall>>('agent_walls', { project });

/** "Always for this project": `rule` into `network.allow`, the waiting connection let through. */
export const alwaysAllowHost = (project: string, sessionId: string, requestId: string, rule: string) =>
  invokeCommand<null>('always_allow_host', { project, sessionId, requestId, rule });

/** The project's MCP servers and their state (starting, up, failed, with the error). */
export const mcpStatus = (project: string) =>
  invokeCommand<Array<McpServerStatus>>('mcp_status', { project });

/** The user's own entry (trusted); `invalid` naming the field when it cannot be used or the name is taken. */
export const addMcpServer = (project: string, name: string, config: McpServerConfig) =>
  invokeCommand<null>('add_mcp_server', { project, name, config });

/** Servers from pasted text (`mcpServers`, `servers`, a bare map) or, `text` null, the project's MCP files; untrusted; a different server with a taken name is refused. */
export const importMcpServers = (project: string, text: string | null) =>
  invokeCommand<Array<string>>('import_mcp_servers', { project, text });

/** Stores (or with `null` removes) the keychain value an MCP server's `${name}` reads when the environment has none; never written to a file. */
export const setMcpValue = (name: string, value: string | null) =>
  invokeCommand<null>('set_mcp_value', { name, value });

/** Whether a key is stored for the provider (never the key), or why the keychain cannot say. */
export const keyStatus = (provider: ProviderKind) =>
  invokeCommand<KeyStatus>('key_status', { provider });

/** Stored in the OS keychain (service `paddock`); `keychain` error when none is reachable, never a plaintext fallback. */
export const setApiKey = (provider: ProviderKind, key: string) =>
  invokeCommand<KeyStatus>('set_api_key', { provider, key });

/** Removes the provider's key from the keychain. */
export const deleteApiKey = (provider: ProviderKind) =>
  invokeCommand<KeyStatus>('delete_api_key', { provider });

/** The models the provider offers. */
export const listModels = (provider: ProviderKind, baseUrl: string | null) =>
  invokeCommand<Array<ModelInfo>>('list_models', { provider, baseUrl });

/** Reaches the provider with the stored key and says what answered. */
export const testConnection = (provider: ProviderKind, baseUrl: string | null, model: string | null) =>
  invokeCommand<ConnectionReport>('test_connection', { provider, baseUrl, model });

/** One short request offering a harmless tool: native / text fallback / none, streaming, first token, window, advice. */
export const testToolCalling = (provider: ProviderKind, baseUrl: string | null, model: string) =>
  invokeCommand<ToolProbeReport>('test_tool_calling', { provider, baseUrl, model });

/** Opens an `http(s)` or `mailto` address in the browser (the opener plugin's Rust side; the webview has none); anything else is `invalid`. The UI asks first. */
export const openLink = (url: string) =>
  invokeCommand<null>('open_link', { url });

/** The next click on the window's notifications after number `after` (null: after those so far); null once it closes. Polled, not a Tauri event (a script the app evaluates). */
export const nextNotificationClick = (after: number | null) =>
  invokeCommand<NotificationClick | null>('next_notification_click', { after });

/** `session_id` (new when `sessionId` is null; in `worktree` when given) and `feed`. The run goes on in the background; its `AgentEvent`s wait on the feed and end with `run_finished`. `busy` if that session is already running. */
export const sendPrompt = (project: string, sessionId: string | null, prompt: PromptInput, worktree: string | null) =>
  invokeCommand<RunStarted>('send_prompt', { project, sessionId, prompt, worktree });

/** The window's run `feed` events since the last call, waiting while there is none; `done` after the last; another window's or a closed feed: `{items: [], done: true}`. Polled, not a Tauri channel (each message a script the app evaluates; `feed.rs`). */
export const nextRunEvents = (feed: number) =>
  invokeCommand<Batch<AgentEvent>>('next_run_events', { feed });

/** Cancels; the run ends with `run_finished` / `aborted`. */
export const stopRun = (project: string, sessionId: string) =>
  invokeCommand<null>('stop_run', { project, sessionId });

/** Answers a waiting approval. */
export const approve = (project: string, sessionId: string, requestId: string, decision: ApprovalDecision) =>
  invokeCommand<null>('approve', { project, sessionId, requestId, decision });

/** `created` and `updated` in the local offset (JavaScript's would load ICU's zone data). */
export const listSessions = (project: string) =>
  invokeCommand<Array<SessionSummary>>('list_sessions', { project });

/** Sessions whose texts match `query`, best first. */
export const searchSessions = (project: string, query: string) =>
  invokeCommand<Array<SearchHit>>('search_sessions', { project, query });

/** One of the session's images (by media type and SHA-256) as a `data:` URL. */
export const sessionImage = (project: string, sessionId: string, mediaType: string, sha256: string) =>
  invokeCommand<string>('session_image', { project, sessionId, mediaType, sha256 });

/** Whole, or with `tail` its last turns (cut at a turn boundary), `omitted` saying what was left out (runs, turns, usage); rewound or unpaired sessions come whole. */
export const loadSession = (project: string, sessionId: string, tail: number | null) =>
  invokeCommand<SessionTranscript>('load_session', { project, sessionId, tail });

/** Deletes the session (refused while it runs). */
export const deleteSession = (project: string, sessionId: string) =>
  invokeCommand<null>('delete_session', { project, sessionId });

/** The path written (native save dialog; 0600, never through a link), null when cancelled. */
export const exportSession = (project: string, sessionId: string, format: ExportFormat) =>
  invokeCommand<string | null>('export_session', { project, sessionId, format });

/** The project's session worktrees (branch `paddock/<name>`, state, session), oldest first. */
export const worktrees = (project: string) =>
  invokeCommand<Array<WorktreeInfo>>('worktrees', { project });

/** A worktree for a new session (`name`, else from `hint`; `plain_copy`: of a folder outside git): trusted `copy`, then `setup`. A folder outside git fails with `not_a_repository` (the app then offers a plain copy). */
export const createWorktree = (project: string, name: string | null, hint: string | null, plainCopy: boolean) =>
  invokeCommand<WorktreeCreated>('create_worktree', { project, name, hint, plainCopy });

/** Commits, uncommitted files and files changed since the base. */
export const worktreeChanges = (project: string, name: string) =>
  invokeCommand<WorktreeChanges>('worktree_changes', { project, name });

/** One file of the checkout against the worktree's base; null when they are the same. */
export const worktreeDiff = (project: string, name: string, path: string) =>
  invokeCommand<FileChange | null>('worktree_diff', { project, name, path });

/** The project's branches to merge into (not the sessions' own) and the current one. */
export const projectBranches = (project: string) =>
  invokeCommand<BranchList>('project_branches', { project });

/** The model's commit message for what the worktree has not committed (from its diff). */
export const proposeCommitMessage = (project: string, name: string) =>
  invokeCommand<string>('propose_commit_message', { project, name });

/** Commit, merge (conflicts change nothing), keep the branch only, or discard. */
export const landWorktree = (project: string, name: string, landing: WorktreeLanding) =>
  invokeCommand<WorktreeLanded>('land_worktree', { project, name, landing });

/** Where the project's checkpoints stand: the first snapshot's progress (taken in the background from `open_project` or a run's start), or why each turn walks the workspace. */
export const checkpointStatus = (project: string) =>
  invokeCommand<CheckpointStatus>('checkpoint_status', { project });

/** One file's change between two checkpoints (a run's Changes row); null when unchanged. */
export const checkpointDiff = (project: string, from: string, to: string, path: string) =>
  invokeCommand<FileChange | null>('checkpoint_diff', { project, from, to, path });

/** The diff the rewind to before prompt `prompt` (1-based), turn `turn` (0: the prompt) would apply and the messages it would set aside; changes nothing. */
export const rewindPreview = (project: string, sessionId: string, prompt: number, turn: number, mode: RewindMode) =>
  invokeCommand<RewindPreview>('rewind_preview', { project, sessionId, prompt, turn, mode });

/** The session as it reads after the rewind (`busy` while a prompt runs in the project). */
export const rewindSession = (project: string, sessionId: string, prompt: number, turn: number, mode: RewindMode) =>
  invokeCommand<SessionTranscript>('rewind_session', { project, sessionId, prompt, turn, mode });

/** The session after undoing the last rewind (refused once a prompt ran since). */
export const undoRewind = (project: string, sessionId: string) =>
  invokeCommand<SessionTranscript>('undo_rewind', { project, sessionId });

/** The session after the model summarized the start of the conversation. */
export const compactSession = (project: string, sessionId: string) =>
  invokeCommand<SessionTranscript>('compact_session', { project, sessionId });

/** The session with its latest compaction undone. */
export const undoCompaction = (project: string, sessionId: string) =>
  invokeCommand<SessionTranscript>('undo_compaction', { project, sessionId });

/** The session with the latest compaction's summary (`id`) replaced. */
export const editCompaction = (project: string, sessionId: string, id: string, summary: string) =>
  invokeCommand<SessionTranscript>('edit_compaction', { project, sessionId, id, summary });

/** AGENTS.md (or CLAUDE.md): what the agent is given, and notices about it. */
export const projectInstructions = (project: string) =>
  invokeCommand<ProjectInstructions>('project_instructions', { project });

/** The project's `.paddock/prompts/*.md` and the user's own, broken ones with `error`. */
export const savedPrompts = (project: string) =>
  invokeCommand<Array<SavedPrompt>>('saved_prompts', { project });

/** `/name args` filled in; a project prompt not confirmed as it stands comes with `needs_confirmation`, its file and an empty `text`. */
export const expandPrompt = (project: string, name: string, args: string) =>
  invokeCommand<ExpandedPrompt>('expand_prompt', { project, name, args });

/** The user read the project prompt (content `digest`) and sends it: recorded in the trust record, and the text to send; refused when the file changed since. */
export const confirmPrompt = (project: string, name: string, args: string, digest: string) =>
  invokeCommand<ExpandedPrompt>('confirm_prompt', { project, name, args, digest });

/** The agent's workspace as a tree (capped, `.git`/`node_modules` skipped). */
export const workspaceTree = (project: string) =>
  invokeCommand<WorkspaceTree>('workspace_tree', { project });

/** The workspace's files and folders matching `query` for the composer's `@` list (fuzzy, best first, at most 50; ignore files honoured). */
export const mentionCandidates = (project: string, query: string) =>
  invokeCommand<Array<MentionCandidate>>('mention_candidates', { project, query });

/** A file for the preview (size-capped, binary detected; `path_refused` outside the workspace). */
export const readWorkspaceFile = (project: string, path: string) =>
  invokeCommand<FilePreview>('read_workspace_file', { project, path });

/** The feed of the window's notify watcher (debounced, ~200 ms), one per window; a second call replaces it and ends the old feed. */
export const watchWorkspace = (project: string) =>
  invokeCommand<number>('watch_workspace', { project });

/** As `next_run_events`, for the watcher's changes. */
export const nextWorkspaceChanges = (feed: number) =>
  invokeCommand<Batch<WorkspaceChange>>('next_workspace_changes', { feed });

/** What bash would run under in this project now, protection by protection. */
export const sandboxStatus = (project: string) =>
  invokeCommand<SandboxStatus>('sandbox_status', { project });

/** This copy's version, how it was installed and whether it looks for updates. */
export const about = () =>
  invokeCommand<AboutInfo>('about');

/** Asks the update server (`plugins.updater`, or `PADDOCK_UPDATE_URL`); nothing installed. */
export const checkUpdate = () =>
  invokeCommand<UpdateCheck>('check_update');

/** Installs the checked update (an AppImage only; never while a run is live). */
export const installUpdate = () =>
  invokeCommand<string>('install_update');

/** Restarts the app (after an installed update). */
export const restartApp = () =>
  invokeCommand<null>('restart_app');
