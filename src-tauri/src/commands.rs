//! The Tauri commands of docs/desktop-ipc.md. Each is a short delegation: resolve the
//! project, call the module that does the work, return `Result<T, AppError>`.

use std::sync::Arc;

use paddock_host::trust::TrustPolicy;
use paddock_host::{RewindRequest, RunOptions, workspace};
use paddock_protocol::{
    AgentEvent, AppError, ApprovalDecision, Batch, CallExplanation, ConnectionReport, ExportFormat,
    FileChange, FilePreview, Grant, KeyStatus, McpServerStatus, ModelInfo, ProjectInfo,
    ProjectInstructions, ProjectSettings, ProviderKind, RecentProject, RewindMode, RewindPreview,
    RuleEntry, RunStarted, SandboxStatus, SearchHit, SessionSummary, SessionTranscript,
    ToolGrantInfo, ToolPreset, ToolProbeReport, WorkspaceChange, WorkspaceTree,
};
use tauri::ipc::Invoke;
use tauri::{AppHandle, Runtime, State, WebviewWindow};

use crate::error::ToAppError;
use crate::error::{AppResult, internal};
use crate::state::Desktop;
use crate::{
    deltas, grants, keys, links, mcp_servers, notify, projects, runs, sessions, watch, windows,
};

type Result<T> = std::result::Result<T, AppError>;

/// Every command, for `Builder::invoke_handler` (and the mock runtime in tests).
pub fn handler<R: Runtime>() -> impl Fn(Invoke<R>) -> bool + Send + Sync + 'static {
    tauri::generate_handler![
        recent_projects,
        pick_project_folder,
        open_project,
        show_picker,
        project_info,
        save_settings,
        trust_project,
        decline_trust,
        revoke_trust,
        tool_grants,
        set_tool_grant,
        set_preset,
        set_tool_rules,
        explain_call,
        always_allow,
        mcp_servers::add_mcp_server,
        links::open_link,
        notify::next_notification_click,
        projects::set_model,
        mcp_servers::import_mcp_servers,
        mcp_servers::set_mcp_value,
        mcp_status,
        key_status,
        set_api_key,
        delete_api_key,
        list_models,
        test_connection,
        test_tool_calling,
        send_prompt,
        next_run_events,
        stop_run,
        approve,
        list_sessions,
        search_sessions,
        load_session,
        delete_session,
        export_session,
        checkpoint_diff,
        rewind_preview,
        rewind_session,
        undo_rewind,
        compact_session,
        undo_compaction,
        edit_compaction,
        project_instructions,
        workspace_tree,
        read_workspace_file,
        watch_workspace,
        next_workspace_changes,
        sandbox_status,
    ]
}

/// Blocking file work (sessions, trees) off the async threads.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> AppResult<T> + Send + 'static,
) -> AppResult<T> {
    tauri::async_runtime::spawn_blocking(f)
        .await
        .map_err(internal)?
}

// Projects and windows

#[tauri::command]
pub async fn recent_projects(state: State<'_, Desktop>) -> Result<Vec<RecentProject>> {
    Ok(state.recent.list())
}

#[tauri::command]
pub async fn pick_project_folder<R: Runtime>(app: AppHandle<R>) -> Result<Option<String>> {
    windows::pick_folder(&app).await
}

#[tauri::command]
pub async fn open_project<R: Runtime>(
    app: AppHandle<R>,
    window: WebviewWindow<R>,
    state: State<'_, Desktop>,
    path: String,
) -> Result<ProjectInfo> {
    let root = projects::canonical(&path)?;
    // A rewind a crash cut short is finished before anything shows the workspace.
    let (service, at) = (state.service.clone(), root.clone());
    if let Err(e) =
        blocking(move || service.recover_rewind(&at).map_err(ToAppError::app_error)).await
    {
        tracing::warn!("{}", e.message);
    }
    let info = projects::info(state.trust(), &root);
    if info.settings.is_some() {
        // MCP servers the user trusts start now, so their tools are up by the first prompt.
        let settings = projects::effective_settings(&state.service, &root)?;
        state.project(&root).mcp(&settings);
    }
    // The recent list is a convenience: failing to save it never blocks opening.
    if let Err(e) = state.recent.touch(&root) {
        tracing::warn!("{}", e.message);
    }
    windows::open_project_window(&app, &root, &info.name).await?;
    windows::close_picker(&window);
    Ok(info)
}

#[tauri::command]
pub async fn show_picker<R: Runtime>(app: AppHandle<R>) -> Result<()> {
    windows::show_picker(&app).await
}

#[tauri::command]
pub async fn project_info(state: State<'_, Desktop>, project: String) -> Result<ProjectInfo> {
    Ok(projects::info(
        state.trust(),
        &projects::canonical(&project)?,
    ))
}

#[tauri::command]
pub async fn save_settings(
    state: State<'_, Desktop>,
    project: String,
    settings: ProjectSettings,
) -> Result<ProjectInfo> {
    projects::save_settings(state.trust(), &projects::canonical(&project)?, &settings)
}

/// Trusts what the folder's settings ask for, as the trust screen listed it.
#[tauri::command]
pub async fn trust_project(state: State<'_, Desktop>, project: String) -> Result<ProjectInfo> {
    let root = projects::canonical(&project)?;
    let settings = projects::load_settings(&root)?;
    state
        .trust()
        .trust(&root, &settings)
        .map_err(ToAppError::app_error)?;
    tracing::info!(project = %root.display(), "folder trusted");
    trust_changed(&state, &root)
}

/// Opens the folder without what waits for trust; not asked again until that changes.
#[tauri::command]
pub async fn decline_trust(state: State<'_, Desktop>, project: String) -> Result<ProjectInfo> {
    let root = projects::canonical(&project)?;
    let settings = projects::load_settings(&root)?;
    state
        .trust()
        .decline(&root, &settings)
        .map_err(ToAppError::app_error)?;
    Ok(projects::info(state.trust(), &root))
}

/// Takes back the trust given to the folder's settings: what needed it stops applying (MCP
/// servers it started are stopped) and the trust screen asks again.
#[tauri::command]
pub async fn revoke_trust(state: State<'_, Desktop>, project: String) -> Result<ProjectInfo> {
    let root = projects::canonical(&project)?;
    state.trust().revoke(&root).map_err(ToAppError::app_error)?;
    tracing::info!(project = %root.display(), "folder trust revoked");
    trust_changed(&state, &root)
}

/// After the folder's trust changed: its MCP servers follow what now applies (started when
/// trusted, shut down when revoked), and the window gets the project as it now is.
fn trust_changed(state: &Desktop, root: &std::path::Path) -> Result<ProjectInfo> {
    let effective = projects::effective_settings(&state.service, root)?;
    state.project(root).mcp(&effective);
    Ok(projects::info(state.trust(), root))
}

// Grants and rules

#[tauri::command]
pub async fn tool_grants(state: State<'_, Desktop>, project: String) -> Result<Vec<ToolGrantInfo>> {
    grants::list(&state, &projects::canonical(&project)?).await
}

#[tauri::command]
pub async fn set_tool_grant(
    state: State<'_, Desktop>,
    project: String,
    tool: String,
    grant: Option<Grant>,
) -> Result<Vec<ToolGrantInfo>> {
    grants::set_grant(&state, &projects::canonical(&project)?, &tool, grant).await
}

#[tauri::command]
pub async fn set_preset(
    state: State<'_, Desktop>,
    project: String,
    preset: Option<ToolPreset>,
) -> Result<Vec<ToolGrantInfo>> {
    grants::set_preset(&state, &projects::canonical(&project)?, preset).await
}

#[tauri::command]
pub async fn set_tool_rules(
    state: State<'_, Desktop>,
    project: String,
    tool: String,
    rules: Vec<RuleEntry>,
) -> Result<Vec<ToolGrantInfo>> {
    grants::set_rules(&state, &projects::canonical(&project)?, &tool, rules).await
}

#[tauri::command]
pub async fn explain_call(
    state: State<'_, Desktop>,
    project: String,
    tool: String,
    call: String,
) -> Result<CallExplanation> {
    grants::explain_call(&state, &projects::canonical(&project)?, &tool, &call)
}

#[tauri::command]
pub async fn always_allow(
    state: State<'_, Desktop>,
    project: String,
    session_id: String,
    request_id: String,
    tool: String,
    patterns: Vec<String>,
) -> Result<()> {
    let root = projects::canonical(&project)?;
    grants::always_allow(&state, &root, &session_id, &request_id, &tool, &patterns)
}

#[tauri::command]
pub async fn mcp_status(
    state: State<'_, Desktop>,
    project: String,
) -> Result<Vec<McpServerStatus>> {
    let root = projects::canonical(&project)?;
    let settings = projects::effective_settings(&state.service, &root)?;
    Ok(state.project(&root).mcp(&settings).statuses())
}

// Providers and keys

#[tauri::command]
pub async fn key_status(state: State<'_, Desktop>, provider: ProviderKind) -> Result<KeyStatus> {
    keys::status(state.keys(), provider).await
}

#[tauri::command]
pub async fn set_api_key(
    state: State<'_, Desktop>,
    provider: ProviderKind,
    key: String,
) -> Result<KeyStatus> {
    let status = keys::set(state.keys(), provider, key).await;
    state.service.keys_changed();
    status
}

#[tauri::command]
pub async fn delete_api_key(
    state: State<'_, Desktop>,
    provider: ProviderKind,
) -> Result<KeyStatus> {
    let status = keys::delete(state.keys(), provider).await;
    state.service.keys_changed();
    status
}

#[tauri::command]
pub async fn list_models(
    state: State<'_, Desktop>,
    provider: ProviderKind,
    base_url: Option<String>,
) -> Result<Vec<ModelInfo>> {
    keys::list_models(state.keys(), provider, base_url).await
}

#[tauri::command]
pub async fn test_connection(
    state: State<'_, Desktop>,
    provider: ProviderKind,
    base_url: Option<String>,
    model: Option<String>,
) -> Result<ConnectionReport> {
    keys::test_connection(state.keys(), provider, base_url, model).await
}

#[tauri::command]
pub async fn test_tool_calling(
    state: State<'_, Desktop>,
    provider: ProviderKind,
    base_url: Option<String>,
    model: String,
) -> Result<ToolProbeReport> {
    keys::probe_tools(state.keys(), provider, base_url, model).await
}

// Runs and sessions

#[tauri::command]
pub async fn send_prompt<R: Runtime>(
    window: WebviewWindow<R>,
    state: State<'_, Desktop>,
    notifier: State<'_, Arc<notify::Notifier>>,
    project: String,
    session_id: Option<String>,
    prompt: String,
) -> Result<RunStarted> {
    let root = projects::canonical(&project)?;
    let label = window.label().to_owned();
    let (feed, writer) = state.events.open(&label);
    // The feed closes when the run's last event is in (the sink, and so the writer, dropped).
    let sink = Arc::new(deltas::merging(move |event| writer.push(event)));
    let sink = notify::sink(
        window,
        projects::name_of(&root),
        notifier.inner().clone(),
        sink,
    );
    match runs::send_prompt(&state, &root, session_id, prompt, sink).await {
        Ok(session_id) => Ok(RunStarted { session_id, feed }),
        Err(e) => {
            state.events.close(&label, feed);
            Err(e)
        }
    }
}

/// The events of this window's run `feed` since the last call, waiting for one.
#[tauri::command]
pub async fn next_run_events<R: Runtime>(
    window: WebviewWindow<R>,
    state: State<'_, Desktop>,
    feed: u64,
) -> Result<Batch<AgentEvent>> {
    Ok(state.events.next(window.label(), feed).await)
}

#[tauri::command]
pub async fn stop_run(
    state: State<'_, Desktop>,
    project: String,
    session_id: String,
) -> Result<()> {
    state
        .runs()
        .stop(&projects::canonical(&project)?, &session_id);
    Ok(())
}

#[tauri::command]
pub async fn approve(
    state: State<'_, Desktop>,
    project: String,
    session_id: String,
    request_id: String,
    decision: ApprovalDecision,
) -> Result<()> {
    let root = projects::canonical(&project)?;
    state
        .runs()
        .approve(&root, &session_id, &request_id, decision)
        .map_err(ToAppError::app_error)
}

#[tauri::command]
pub async fn list_sessions(
    state: State<'_, Desktop>,
    project: String,
) -> Result<Vec<SessionSummary>> {
    let (root, store) = (projects::canonical(&project)?, state.store().clone());
    blocking(move || sessions::list(&store, &root)).await
}

#[tauri::command]
pub async fn search_sessions(
    state: State<'_, Desktop>,
    project: String,
    query: String,
) -> Result<Vec<SearchHit>> {
    let (root, store) = (projects::canonical(&project)?, state.store().clone());
    blocking(move || sessions::search(&store, &root, &query)).await
}

#[tauri::command]
pub async fn load_session(
    state: State<'_, Desktop>,
    project: String,
    session_id: String,
    tail: Option<u32>,
) -> Result<SessionTranscript> {
    let (root, store) = (projects::canonical(&project)?, state.store().clone());
    blocking(move || sessions::load_tail(&store, &root, &session_id, tail)).await
}

#[tauri::command]
pub async fn delete_session(
    state: State<'_, Desktop>,
    project: String,
    session_id: String,
) -> Result<()> {
    let (root, service) = (projects::canonical(&project)?, state.service.clone());
    blocking(move || sessions::delete(&service, &root, &session_id)).await
}

#[tauri::command]
pub async fn export_session<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, Desktop>,
    project: String,
    session_id: String,
    format: ExportFormat,
) -> Result<Option<String>> {
    let (root, store) = (projects::canonical(&project)?, state.store().clone());
    let (text, name) =
        blocking(move || sessions::export(&store, &root, &session_id, format)).await?;
    let Some(path) = windows::pick_save_path(&app, &name).await? else {
        return Ok(None);
    };
    paddock_host::session::write_export(&path, &text)
        .map_err(|e| internal(format!("cannot write {}: {e}", path.display())))?;
    Ok(Some(path.to_string_lossy().into_owned()))
}

// Changes and rewinds

#[tauri::command]
pub async fn checkpoint_diff(
    state: State<'_, Desktop>,
    project: String,
    from: String,
    to: String,
    path: String,
) -> Result<Option<FileChange>> {
    let (root, service) = (projects::canonical(&project)?, state.service.clone());
    blocking(move || {
        service
            .checkpoint_diff(&root, &from, &to, &path)
            .map_err(ToAppError::app_error)
    })
    .await
}

#[tauri::command]
pub async fn rewind_preview(
    state: State<'_, Desktop>,
    project: String,
    session_id: String,
    prompt: u32,
    turn: u32,
    mode: RewindMode,
) -> Result<RewindPreview> {
    let (root, service) = (projects::canonical(&project)?, state.service.clone());
    let request = RewindRequest {
        session: session_id,
        prompt,
        turn,
        mode,
    };
    blocking(move || {
        service
            .rewind_preview(&root, &request)
            .map_err(ToAppError::app_error)
    })
    .await
}

/// Rewinds and returns the session as it now reads.
#[tauri::command]
pub async fn rewind_session(
    state: State<'_, Desktop>,
    project: String,
    session_id: String,
    prompt: u32,
    turn: u32,
    mode: RewindMode,
) -> Result<SessionTranscript> {
    let (root, service) = (projects::canonical(&project)?, state.service.clone());
    let request = RewindRequest {
        session: session_id.clone(),
        prompt,
        turn,
        mode,
    };
    blocking(move || {
        service
            .rewind(&root, &request)
            .map_err(ToAppError::app_error)?;
        sessions::load(service.store(), &root, &session_id)
    })
    .await
}

/// Undoes the session's last rewind and returns the session as it now reads.
#[tauri::command]
pub async fn undo_rewind(
    state: State<'_, Desktop>,
    project: String,
    session_id: String,
) -> Result<SessionTranscript> {
    let (root, service) = (projects::canonical(&project)?, state.service.clone());
    blocking(move || {
        service
            .undo_rewind(&root, &session_id)
            .map_err(ToAppError::app_error)?;
        sessions::load(service.store(), &root, &session_id)
    })
    .await
}

// Context and compaction

/// Compacts the session between prompts and returns it as it now reads.
#[tauri::command]
pub async fn compact_session(
    state: State<'_, Desktop>,
    project: String,
    session_id: String,
) -> Result<SessionTranscript> {
    let root = projects::canonical(&project)?;
    let live = state.project(&root);
    state
        .service
        .compact(
            &live,
            &session_id,
            &RunOptions::default(),
            TrustPolicy::SafeDefaults,
        )
        .await
        .map_err(ToAppError::app_error)?;
    let service = state.service.clone();
    blocking(move || sessions::load(service.store(), &root, &session_id)).await
}

#[tauri::command]
pub async fn undo_compaction(
    state: State<'_, Desktop>,
    project: String,
    session_id: String,
) -> Result<SessionTranscript> {
    let (root, service) = (projects::canonical(&project)?, state.service.clone());
    blocking(move || {
        service
            .undo_compaction(&root, &session_id)
            .map_err(ToAppError::app_error)?;
        sessions::load(service.store(), &root, &session_id)
    })
    .await
}

#[tauri::command]
pub async fn edit_compaction(
    state: State<'_, Desktop>,
    project: String,
    session_id: String,
    id: String,
    summary: String,
) -> Result<SessionTranscript> {
    let (root, service) = (projects::canonical(&project)?, state.service.clone());
    blocking(move || {
        service
            .edit_compaction(&root, &session_id, &id, &summary)
            .map_err(ToAppError::app_error)?;
        sessions::load(service.store(), &root, &session_id)
    })
    .await
}

/// The instruction files the agent is given (AGENTS.md or CLAUDE.md) and their text.
#[tauri::command]
pub async fn project_instructions(project: String) -> Result<ProjectInstructions> {
    let root = projects::canonical(&project)?;
    blocking(move || Ok(paddock_host::instructions::load(&root).into())).await
}

// Workspace

#[tauri::command]
pub async fn workspace_tree(project: String) -> Result<WorkspaceTree> {
    let root = projects::canonical(&project)?;
    blocking(move || workspace::tree(&workspace::guard_for(&root)).map_err(ToAppError::app_error))
        .await
}

#[tauri::command]
pub async fn read_workspace_file(project: String, path: String) -> Result<FilePreview> {
    let root = projects::canonical(&project)?;
    blocking(move || {
        workspace::preview(&workspace::guard_for(&root), &path).map_err(ToAppError::app_error)
    })
    .await
}

/// Starts (or replaces) this window's watcher; returns the feed its changes come on.
#[tauri::command]
pub async fn watch_workspace<R: Runtime>(
    window: WebviewWindow<R>,
    state: State<'_, Desktop>,
    project: String,
) -> Result<u64> {
    let root = projects::canonical(&project)?;
    let workspace = workspace::watchable_root(&root).map_err(ToAppError::app_error)?;
    let (feed, writer) = state.changes.open(window.label());
    // Replacing the watcher drops the old writer: the old feed's page is told it is done.
    match watch::watch(&workspace, move |change| writer.push(change)) {
        Ok(watch) => {
            state.set_watcher(window.label(), watch);
            Ok(feed)
        }
        Err(e) => {
            state.changes.close(window.label(), feed);
            Err(e)
        }
    }
}

/// The changes on this window's workspace `feed` since the last call, waiting for one.
#[tauri::command]
pub async fn next_workspace_changes<R: Runtime>(
    window: WebviewWindow<R>,
    state: State<'_, Desktop>,
    feed: u64,
) -> Result<Batch<WorkspaceChange>> {
    Ok(state.changes.next(window.label(), feed).await)
}

#[tauri::command]
pub async fn sandbox_status(state: State<'_, Desktop>, project: String) -> Result<SandboxStatus> {
    Ok(projects::info(state.trust(), &projects::canonical(&project)?).sandbox)
}
