//! Every Tauri command, written once (`contract::commands!`): the page's typed client, its
//! test mock and docs/desktop-ipc.md's table are generated from these. Each is a short
//! delegation: resolve the project, call the host (or the module that adapts it), return
//! `Result<T, AppError>`.

use std::sync::Arc;

use paddock_host::edit::{Edit, in_effect, info};
use paddock_host::{RewindRequest, workspace};
use paddock_protocol::{
    AboutInfo, AgentEvent, ApprovalDecision, Batch, CallExplanation, CheckpointStatus,
    ConnectionReport, ExportFormat, FileChange, FilePreview, Grant, KeyStatus, McpServerConfig,
    McpServerStatus, ModelInfo, NetworkSettings, NetworkView, NotificationClick, ProjectInfo,
    ProjectInstructions, ProjectSettings, ProviderKind, RecentProject, RewindMode, RewindPreview,
    RuleEntry, RunStarted, SandboxStatus, SearchHit, SessionSummary, SessionTranscript,
    ToolGrantInfo, ToolPreset, ToolProbeReport, UpdateCheck, WorkspaceChange, WorkspaceTree,
};
use paddock_protocol::{BranchList, WorktreeChanges, WorktreeCreated, WorktreeInfo};
use paddock_protocol::{ExpandedPrompt, SavedPrompt};
use paddock_protocol::{ExternalAgentConfig, KnownAgent};
use paddock_protocol::{
    ExternalAgentInfo, ExternalAgentWall, HookInfo, MentionCandidate, PromptInput,
};
use paddock_protocol::{WorktreeLanded, WorktreeLanding};
use tauri::{AppHandle, State, WebviewWindow};

use crate::agents;
use crate::contract::commands;
use crate::error::blocking;
use crate::projects::canonical;
use crate::state::Desktop;
use crate::{grants, keys, links, notify, prompts, runs, sessions, updates, windows, worktrees};

commands! {
    // Projects and windows

    /// Recently opened projects, newest first; stored in the app data dir (no secrets);
    /// `last_opened` in the machine's local offset.
    fn recent_projects[state: State<'_, Desktop>]() -> Vec<RecentProject> { Ok(state.recent.list()) }

    /// The native folder dialog, run from Rust; null when cancelled.
    fn pick_project_folder<R>[app: AppHandle<R>]() -> Option<String> { windows::pick_folder(&app).await }

    /// One window per project (focused if open, else opened at `index.html?project=<path>`);
    /// adds to recents, closes the picker; finishes a crash-cut rewind, starts trusted MCP
    /// servers and the first checkpoint in the background (`checkpoint_status`).
    fn open_project<R>[
        app: AppHandle<R>,
        window: WebviewWindow<R>,
        state: State<'_, Desktop>,
    ](path: String) -> ProjectInfo {
        crate::open::open(&app, &window, &state, &path).await
    }

    /// Focuses the picker window, or opens it again (a project window's "Open project…").
    fn show_picker<R>[app: AppHandle<R>]() -> () { windows::show_picker(&app).await }

    /// Settings as written (or `settings_error` when the file is broken), workspace root and
    /// sandbox status as they apply, `trust` (what waits for the user's trust).
    fn project_info[state: State<'_, Desktop>](project: String) -> ProjectInfo {
        Ok(info(state.trust(), &canonical(&project)?))
    }

    /// Validated, atomic; refuses to overwrite a broken file; the fields the user changed are
    /// trusted. The workspace mode switch is this with `settings.workspace` changed.
    fn save_settings[state: State<'_, Desktop>](
        project: String,
        settings: ProjectSettings,
    ) -> ProjectInfo {
        let root = canonical(&project)?;
        Ok(Edit::new(state.trust(), &root).live(&state.project(&root)).save(settings)?)
    }

    /// Trusts every gated field as the settings stand; the trusted MCP servers start and the
    /// rules apply.
    fn trust_project[state: State<'_, Desktop>](project: String) -> ProjectInfo {
        let root = canonical(&project)?;
        Ok(Edit::new(state.trust(), &root).live(&state.project(&root)).trust_folder()?)
    }

    /// Opens without the pending fields; not asked again until they change.
    fn decline_trust[state: State<'_, Desktop>](project: String) -> ProjectInfo {
        let root = canonical(&project)?;
        Ok(Edit::new(state.trust(), &root).decline_trust()?)
    }

    /// Takes back the trust given to the folder's settings: what needed it stops applying (MCP
    /// servers it started stop) and the trust screen asks again.
    fn revoke_trust[state: State<'_, Desktop>](project: String) -> ProjectInfo {
        let root = canonical(&project)?;
        Ok(Edit::new(state.trust(), &root).live(&state.project(&root)).revoke_trust()?)
    }

    /// The composer's model picker: saved as the project's `model` (the user's change); the next
    /// prompt, in any session, uses it.
    fn set_model[state: State<'_, Desktop>](project: String, model: String) -> ProjectInfo {
        let root = canonical(&project)?;
        Ok(Edit::new(state.trust(), &root).choose_model(&model)?)
    }

    // Grants, rules and MCP servers

    /// Built-ins, `delegate_to_agent` with teammates, MCP tools (`mcp__<server>__<tool>`);
    /// each with its grant and reason under the settings in effect.
    fn tool_grants[state: State<'_, Desktop>](project: String) -> Vec<ToolGrantInfo> {
        grants::list(&state, &canonical(&project)?).await
    }

    /// `null` removes the override (back to the preset); saved to the settings at once (the
    /// user's change, trusted).
    fn set_tool_grant[state: State<'_, Desktop>](
        project: String,
        tool: String,
        grant: Option<Grant>,
    ) -> Vec<ToolGrantInfo> {
        grants::set_grant(&state, &canonical(&project)?, &tool, grant).await
    }

    /// Sets (or with `null` removes) the preset; saved at once.
    fn set_preset[state: State<'_, Desktop>](
        project: String,
        preset: Option<ToolPreset>,
    ) -> Vec<ToolGrantInfo> {
        grants::set_preset(&state, &canonical(&project)?, preset).await
    }

    /// Replaces the tool's rules in order (`[]`: none); `invalid` names `rules.<tool>[i]`;
    /// trusted; runs going on apply them at their next call.
    fn set_tool_rules[state: State<'_, Desktop>](
        project: String,
        tool: String,
        rules: Vec<RuleEntry>,
    ) -> Vec<ToolGrantInfo> {
        grants::set_rules(&state, &canonical(&project)?, &tool, rules).await
    }

    /// What the grants and rules would do with the call (a command, a path, JSON), and why.
    fn explain_call[state: State<'_, Desktop>](project: String, tool: String, call: String) -> CallExplanation {
        grants::explain_call(&state, &canonical(&project)?, &tool, &call)
    }

    /// "Always allow": saves the (edited) proposed rules as trusted, applies them, approves once.
    fn always_allow[state: State<'_, Desktop>](
        project: String,
        session_id: String,
        request_id: String,
        tool: String,
        patterns: Vec<String>,
    ) -> () {
        let root = canonical(&project)?;
        grants::always_allow(&state, &root, &session_id, &request_id, &tool, &patterns)
    }

    /// The grants screen's Network section (`host::network::view`).
    fn network_view[state: State<'_, Desktop>](project: String) -> NetworkView {
        grants::network_view(&state, &canonical(&project)?)
    }

    /// Replaces the `network` setting (trusted; `invalid` names `network.<list>[i]`).
    fn set_network[state: State<'_, Desktop>](project: String, network: NetworkSettings) -> NetworkView { grants::set_network(&state, &canonical(&project)?, network) }

    /// The user's hooks and the project's, each with its source and whether it waits for trust.
    fn hook_list[state: State<'_, Desktop>](project: String) -> Vec<HookInfo> { Ok(state.service.hook_list(&canonical(&project)?)?) }

    /// The external ACP agents the user added (`agents.json` in the config folder).
    fn list_agents[state: State<'_, Desktop>]() -> Vec<ExternalAgentInfo> { Ok(paddock_host::external::list(state.trust().config_dir())?) }

    /// The agents Paddock knows how to run, each with whether it is installed ("Add agent").
    fn known_agents[_state: State<'_, Desktop>]() -> Vec<KnownAgent> { Ok(paddock_host::external::known()) }

    /// Adds (with `replace`, replaces) an agent in the user's `agents.json`; the list after.
    fn save_agent[state: State<'_, Desktop>](name: String, config: ExternalAgentConfig, replace: bool) -> Vec<ExternalAgentInfo> { agents::save(&state, &name, config, replace) }

    /// Removes an agent from `agents.json` (its sessions stay); the list after.
    fn remove_agent[state: State<'_, Desktop>](name: String) -> Vec<ExternalAgentInfo> { agents::remove(&state, &name) }

    /// What the wall around each external agent enforces in the project (the Sandbox screen).
    fn agent_walls[state: State<'_, Desktop>](project: String) -> Vec<ExternalAgentWall> { Ok(paddock_host::external::walls(state.trust(), &canonical(&project)?)?) }

    /// "Always for this project": `rule` into `network.allow`, the waiting connection let through.
    fn always_allow_host[state: State<'_, Desktop>](project: String, session_id: String, request_id: String, rule: String) -> () {
        let root = canonical(&project)?;
        grants::always_allow_host(&state, &root, &session_id, &request_id, &rule)
    }

    /// The project's MCP servers and their state (starting, up, failed, with the error).
    fn mcp_status[state: State<'_, Desktop>](project: String) -> Vec<McpServerStatus> {
        let root = canonical(&project)?;
        let now = in_effect(state.trust(), &root)?;
        Ok(state.project(&root).mcp(now.settings()).statuses())
    }

    /// The user's own entry (trusted); `invalid` naming the field when it cannot be used or the
    /// name is taken.
    fn add_mcp_server[state: State<'_, Desktop>](
        project: String,
        name: String,
        config: McpServerConfig,
    ) -> () {
        let root = canonical(&project)?;
        Ok(Edit::new(state.trust(), &root).add_mcp_server(&name, config)?)
    }

    /// Servers from pasted text (`mcpServers`, `servers`, a bare map) or, `text` null, the
    /// project's MCP files; untrusted; a different server with a taken name is refused.
    fn import_mcp_servers[state: State<'_, Desktop>](
        project: String,
        text: Option<String>,
    ) -> Vec<String> {
        let root = canonical(&project)?;
        Ok(Edit::new(state.trust(), &root).import_mcp_servers(text)?)
    }

    /// Stores (or with `null` removes) the keychain value an MCP server's `${name}` reads when
    /// the environment has none; never written to a file.
    fn set_mcp_value[state: State<'_, Desktop>](name: String, value: Option<String>) -> () {
        let keys = state.keys();
        blocking(move || Ok(paddock_host::set_mcp_value(&*keys, &name, value.as_deref())?)).await
    }

    // Providers and keys

    /// Whether a key is stored for the provider (never the key), or why the keychain cannot say.
    fn key_status[state: State<'_, Desktop>](provider: ProviderKind) -> KeyStatus {
        keys::status(state.keys(), provider).await
    }

    /// Stored in the OS keychain (service `paddock`); `keychain` error when none is reachable,
    /// never a plaintext fallback.
    fn set_api_key[state: State<'_, Desktop>](provider: ProviderKind, key: String) -> KeyStatus {
        let status = keys::set(state.keys(), provider, key).await;
        state.service.keys_changed();
        status
    }

    /// Removes the provider's key from the keychain.
    fn delete_api_key[state: State<'_, Desktop>](provider: ProviderKind) -> KeyStatus {
        let status = keys::delete(state.keys(), provider).await;
        state.service.keys_changed();
        status
    }

    /// The models the provider offers.
    fn list_models[state: State<'_, Desktop>](
        provider: ProviderKind,
        base_url: Option<String>,
    ) -> Vec<ModelInfo> {
        keys::list_models(state.keys(), provider, base_url).await
    }

    /// Reaches the provider with the stored key and says what answered.
    fn test_connection[state: State<'_, Desktop>](
        provider: ProviderKind,
        base_url: Option<String>,
        model: Option<String>,
    ) -> ConnectionReport {
        keys::test_connection(state.keys(), provider, base_url, model).await
    }

    /// One short request offering a harmless tool: native / text fallback / none, streaming,
    /// first token, window, advice.
    fn test_tool_calling[state: State<'_, Desktop>](
        provider: ProviderKind,
        base_url: Option<String>,
        model: String,
    ) -> ToolProbeReport {
        keys::probe_tools(state.keys(), provider, base_url, model).await
    }

    /// Opens an `http(s)` or `mailto` address in the browser (the opener plugin's Rust side; the
    /// webview has none); anything else is `invalid`. The UI asks first.
    fn open_link<R>[app: AppHandle<R>](url: String) -> () { links::open(&app, &url) }

    /// The next click on the window's notifications after number `after` (null: after those
    /// so far); null once it closes. Polled, not a Tauri event (a script the app evaluates).
    fn next_notification_click<R>[
        window: WebviewWindow<R>,
        notifier: State<'_, Arc<notify::Notifier>>,
    ](after: Option<u64>) -> Option<NotificationClick> {
        Ok(notifier.next_click(window.label(), after).await)
    }

    // Runs and sessions

    /// `session_id` (new when `sessionId` is null; in `worktree` when given) and `feed`. The
    /// run goes on in the background; its `AgentEvent`s wait on the feed and end with
    /// `run_finished`. `busy` if that session is already running.
    fn send_prompt<R>[
        window: WebviewWindow<R>,
        state: State<'_, Desktop>,
        notifier: State<'_, Arc<notify::Notifier>>,
    ](project: String, session_id: Option<String>, prompt: PromptInput, worktree: Option<String>) -> RunStarted {
        let (root, notifier) = (canonical(&project)?, notifier.inner().clone());
        runs::start(window, &state, notifier, &root, session_id, prompt, worktree).await
    }

    /// The window's run `feed` events since the last call, waiting while there is none; `done`
    /// after the last; another window's or a closed feed: `{items: [], done: true}`. Polled,
    /// not a Tauri channel (each message a script the app evaluates; `feed.rs`).
    fn next_run_events<R>[window: WebviewWindow<R>, state: State<'_, Desktop>](
        feed: u64,
    ) -> Batch<AgentEvent> {
        Ok(state.events.next(window.label(), feed).await)
    }

    /// Cancels; the run ends with `run_finished` / `aborted`.
    fn stop_run[state: State<'_, Desktop>](project: String, session_id: String) -> () {
        state.runs().stop(&canonical(&project)?, &session_id);
        Ok(())
    }

    /// Answers a waiting approval.
    fn approve[state: State<'_, Desktop>](
        project: String,
        session_id: String,
        request_id: String,
        decision: ApprovalDecision,
    ) -> () {
        let root = canonical(&project)?;
        Ok(state.runs().approve(&root, &session_id, &request_id, decision)?)
    }

    /// `created` and `updated` in the local offset (JavaScript's would load ICU's zone data).
    fn list_sessions[state: State<'_, Desktop>](project: String) -> Vec<SessionSummary> {
        let (root, store) = (canonical(&project)?, state.store().clone());
        blocking(move || sessions::list(&store, &root)).await
    }

    /// Sessions whose texts match `query`, best first.
    fn search_sessions[state: State<'_, Desktop>](project: String, query: String) -> Vec<SearchHit> {
        let (root, store) = (canonical(&project)?, state.store().clone());
        blocking(move || sessions::search(&store, &root, &query)).await
    }

    /// One of the session's images (by media type and SHA-256) as a `data:` URL.
    fn session_image[state: State<'_, Desktop>](project: String, session_id: String, media_type: String, sha256: String) -> String {
        let (root, store) = (canonical(&project)?, state.store().clone());
        blocking(move || sessions::image(&store, &root, &session_id, &media_type, &sha256)).await
    }

    /// Whole, or with `tail` its last turns (cut at a turn boundary), `omitted` saying what was
    /// left out (runs, turns, usage); rewound or unpaired sessions come whole.
    fn load_session[state: State<'_, Desktop>](project: String, session_id: String, tail: Option<u32>) -> SessionTranscript {
        let (root, store) = (canonical(&project)?, state.store().clone());
        blocking(move || sessions::load_tail(&store, &root, &session_id, tail)).await
    }

    /// Deletes the session (refused while it runs).
    fn delete_session[state: State<'_, Desktop>](project: String, session_id: String) -> () {
        let (root, service) = (canonical(&project)?, state.service.clone());
        blocking(move || sessions::delete(&service, &root, &session_id)).await
    }

    /// The path written (native save dialog; 0600, never through a link), null when cancelled.
    fn export_session<R>[app: AppHandle<R>, state: State<'_, Desktop>](
        project: String,
        session_id: String,
        format: ExportFormat,
    ) -> Option<String> {
        sessions::export_to(&app, &state, &canonical(&project)?, session_id, format).await
    }

    // Worktrees (worktrees.rs)

    /// The project's session worktrees (branch `paddock/<name>`, state, session), oldest first.
    fn worktrees[state: State<'_, Desktop>](project: String) -> Vec<WorktreeInfo> {
        Ok(state.service.worktrees(&canonical(&project)?)?)
    }

    /// A worktree for a new session (`name`, else from `hint`; `plain_copy`: of a folder
    /// outside git): trusted `copy`, then `setup`. A folder outside git fails with
    /// `not_a_repository` (the app then offers a plain copy).
    fn create_worktree[state: State<'_, Desktop>](
        project: String,
        name: Option<String>,
        hint: Option<String>,
        plain_copy: bool,
    ) -> WorktreeCreated {
        worktrees::create(&state, &canonical(&project)?, name, hint, plain_copy).await
    }

    /// Commits, uncommitted files and files changed since the base.
    fn worktree_changes[state: State<'_, Desktop>](project: String, name: String) -> WorktreeChanges {
        Ok(state.service.worktree_changes(&canonical(&project)?, &name)?)
    }

    /// One file of the checkout against the worktree's base; null when they are the same.
    fn worktree_diff[state: State<'_, Desktop>](project: String, name: String, path: String) -> Option<FileChange> {
        Ok(state.service.worktree_diff(&canonical(&project)?, &name, &path)?)
    }

    /// The project's branches to merge into (not the sessions' own) and the current one.
    fn project_branches[state: State<'_, Desktop>](project: String) -> BranchList {
        Ok(state.service.branches(&canonical(&project)?)?)
    }

    /// The model's commit message for what the worktree has not committed (from its diff).
    fn propose_commit_message[state: State<'_, Desktop>](project: String, name: String) -> String {
        let root = canonical(&project)?;
        Ok(state.service.propose_commit_message(&state.project(&root), &name).await?)
    }

    /// Commit, merge (conflicts change nothing), keep the branch only, or discard.
    fn land_worktree[state: State<'_, Desktop>](
        project: String,
        name: String,
        landing: WorktreeLanding,
    ) -> WorktreeLanded {
        worktrees::land(&state, &canonical(&project)?, name, landing).await
    }

    // Changes, rewinds and compaction

    /// Where the project's checkpoints stand: the first snapshot's progress (taken in the
    /// background from `open_project` or a run's start), or why each turn walks the workspace.
    fn checkpoint_status[state: State<'_, Desktop>](project: String) -> CheckpointStatus {
        Ok(state.service.checkpoint_status(&canonical(&project)?)?)
    }

    /// One file's change between two checkpoints (a run's Changes row); null when unchanged.
    fn checkpoint_diff[state: State<'_, Desktop>](
        project: String,
        from: String,
        to: String,
        path: String,
    ) -> Option<FileChange> {
        let (root, service) = (canonical(&project)?, state.service.clone());
        blocking(move || Ok(service.checkpoint_diff(&root, &from, &to, &path)?)).await
    }

    /// The diff the rewind to before prompt `prompt` (1-based), turn `turn` (0: the prompt) would
    /// apply and the messages it would set aside; changes nothing.
    fn rewind_preview[state: State<'_, Desktop>](
        project: String,
        session_id: String,
        prompt: u32,
        turn: u32,
        mode: RewindMode,
    ) -> RewindPreview {
        let (root, service) = (canonical(&project)?, state.service.clone());
        let request = RewindRequest { session: session_id, prompt, turn, mode };
        blocking(move || Ok(service.rewind_preview(&root, &request)?)).await
    }

    /// The session as it reads after the rewind (`busy` while a prompt runs in the project).
    fn rewind_session[state: State<'_, Desktop>](
        project: String,
        session_id: String,
        prompt: u32,
        turn: u32,
        mode: RewindMode,
    ) -> SessionTranscript {
        let request = RewindRequest { session: session_id.clone(), prompt, turn, mode };
        sessions::after(&state, &project, session_id, move |s, root| s.rewind(root, &request)).await
    }

    /// The session after undoing the last rewind (refused once a prompt ran since).
    fn undo_rewind[state: State<'_, Desktop>](
        project: String,
        session_id: String,
    ) -> SessionTranscript {
        let id = session_id.clone();
        sessions::after(&state, &project, session_id, move |s, root| s.undo_rewind(root, &id)).await
    }

    /// The session after the model summarized the start of the conversation.
    fn compact_session[state: State<'_, Desktop>](
        project: String,
        session_id: String,
    ) -> SessionTranscript {
        sessions::compact(&state, &project, session_id).await
    }

    /// The session with its latest compaction undone.
    fn undo_compaction[state: State<'_, Desktop>](
        project: String,
        session_id: String,
    ) -> SessionTranscript {
        let id = session_id.clone();
        sessions::after(&state, &project, session_id, move |s, root| s.undo_compaction(root, &id))
            .await
    }

    /// The session with the latest compaction's summary (`id`) replaced.
    fn edit_compaction[state: State<'_, Desktop>](
        project: String,
        session_id: String,
        id: String,
        summary: String,
    ) -> SessionTranscript {
        sessions::edit_compaction(&state, &project, session_id, id, summary).await
    }

    /// AGENTS.md (or CLAUDE.md): what the agent is given, and notices about it.
    fn project_instructions[](project: String) -> ProjectInstructions {
        let root = canonical(&project)?;
        blocking(move || Ok(paddock_host::instructions::load(&root).into())).await
    }

    // Saved prompts (the composer's `/` menu; prompts.rs)

    /// The project's `.paddock/prompts/*.md` and the user's own, broken ones with `error`.
    fn saved_prompts[state: State<'_, Desktop>](project: String) -> Vec<SavedPrompt> {
        prompts::list(&state, &project).await
    }

    /// `/name args` filled in; a project prompt not confirmed as it stands comes with
    /// `needs_confirmation`, its file and an empty `text`.
    fn expand_prompt[state: State<'_, Desktop>](project: String, name: String, args: String)
        -> ExpandedPrompt {
        prompts::expand(&state, &project, name, args, None).await
    }

    /// The user read the project prompt (content `digest`) and sends it: recorded in the
    /// trust record, and the text to send; refused when the file changed since.
    fn confirm_prompt[state: State<'_, Desktop>](
        project: String, name: String, args: String, digest: String,
    ) -> ExpandedPrompt {
        prompts::expand(&state, &project, name, args, Some(digest)).await
    }

    // Workspace

    /// The agent's workspace as a tree (capped, `.git`/`node_modules` skipped).
    fn workspace_tree[state: State<'_, Desktop>](project: String) -> WorkspaceTree {
        let root = canonical(&project)?;
        let guard = workspace::guard_for(state.trust(), &root);
        blocking(move || Ok(workspace::tree(&guard)?)).await
    }

    /// The workspace's files and folders matching `query` for the composer's `@` list (fuzzy,
    /// best first, at most 50; ignore files honoured).
    fn mention_candidates[state: State<'_, Desktop>](project: String, query: String) -> Vec<MentionCandidate> {
        let (root, service) = (canonical(&project)?, state.service.clone());
        blocking(move || Ok(service.mention_candidates(&root, &query)?)).await
    }

    /// A file for the preview (size-capped, binary detected; `path_refused` outside the
    /// workspace).
    fn read_workspace_file[state: State<'_, Desktop>](project: String, path: String) -> FilePreview {
        let root = canonical(&project)?;
        let guard = workspace::guard_for(state.trust(), &root);
        blocking(move || Ok(workspace::preview(&guard, &path)?)).await
    }

    /// The feed of the window's notify watcher (debounced, ~200 ms), one per window; a second
    /// call replaces it and ends the old feed.
    fn watch_workspace<R>[window: WebviewWindow<R>, state: State<'_, Desktop>](
        project: String,
    ) -> u64 {
        state.watch_workspace(window.label(), &canonical(&project)?)
    }

    /// As `next_run_events`, for the watcher's changes.
    fn next_workspace_changes<R>[window: WebviewWindow<R>, state: State<'_, Desktop>](
        feed: u64,
    ) -> Batch<WorkspaceChange> {
        Ok(state.changes.next(window.label(), feed).await)
    }

    /// What bash would run under in this project now, protection by protection.
    fn sandbox_status[state: State<'_, Desktop>](project: String) -> SandboxStatus {
        Ok(info(state.trust(), &canonical(&project)?).sandbox)
    }

    // About and updates (updates.rs)

    /// This copy's version, how it was installed and whether it looks for updates.
    fn about<R>[app: AppHandle<R>]() -> AboutInfo { Ok(updates::about(&app)) }

    /// Asks the update server (`plugins.updater`, or `PADDOCK_UPDATE_URL`); nothing installed.
    fn check_update<R>[
        app: AppHandle<R>,
        state: State<'_, Desktop>,
        pending: State<'_, updates::Pending>,
    ]() -> UpdateCheck {
        updates::check(&app, &pending, state.runs().any()).await
    }

    /// Installs the checked update (an AppImage only; never while a run is live).
    fn install_update<R>[
        app: AppHandle<R>,
        state: State<'_, Desktop>,
        pending: State<'_, updates::Pending>,
    ]() -> String {
        updates::install(&app, &pending, || state.runs().any()).await
    }

    /// Restarts the app (after an installed update).
    fn restart_app<R>[app: AppHandle<R>]() -> () { app.restart() }
}
