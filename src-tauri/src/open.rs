//! Opening a project: its window, and what starts with it.

use crate::error::AppResult;

/// Opens (or focuses) `path`'s project window: its checkpoints begin, the MCP servers the
/// user trusts start, the recent list learns of it, the picker closes.
pub async fn open<R: tauri::Runtime>(
    app: &tauri::AppHandle<R>,
    window: &tauri::WebviewWindow<R>,
    state: &crate::state::Desktop,
    path: &str,
) -> AppResult<paddock_protocol::ProjectInfo> {
    use paddock_host::edit::{in_effect, info};
    let root = crate::projects::canonical(path)?;
    let (service, at) = (state.service.clone(), root.clone());
    if let Err(e) = paddock_host::blocking(
        move || Ok(service.begin_checkpoints(&at)?),
        crate::error::internal,
    )
    .await
    {
        tracing::warn!("{}", e.message);
    }
    let info = info(state.trust(), &root);
    if info.settings.is_some() {
        // MCP servers the user trusts start now, so their tools are up by the first prompt.
        state
            .project(&root)
            .mcp(in_effect(state.trust(), &root)?.settings());
    }
    // The recent list is a convenience: failing to save it never blocks opening.
    if let Err(e) = state.recent.touch(&root) {
        tracing::warn!("{}", e.message);
    }
    crate::windows::open_project_window(app, &root, &info.name).await?;
    crate::windows::close_picker(window);
    Ok(info)
}
