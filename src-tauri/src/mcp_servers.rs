//! MCP servers from the app: add one by hand (the user's own, so trusted), or import
//! entries pasted or read from the project's `.mcp.json` (written elsewhere, so they wait
//! on the trust screen like any settings the user did not make here).

use std::path::Path;

use paddock_host::mcp_import::{merge, parse, read_project_file};
use paddock_host::settings;
use paddock_protocol::{AppError, McpServerConfig};
use tauri::State;

use crate::error::{AppResult, ToAppError, invalid};
use crate::projects;
use crate::state::Desktop;

type Result<T> = std::result::Result<T, AppError>;

/// Adds one server the user described in the form; its fields are trusted as typed.
pub fn add(
    root: &Path,
    trust: &paddock_host::trust::TrustStore,
    name: &str,
    config: McpServerConfig,
) -> AppResult<()> {
    let name = name.trim().to_owned();
    projects::try_update_settings(trust, root, |s| {
        if s.mcp_servers.contains_key(&name) {
            return Err(settings::FieldError::new(
                format!("mcpServers.{name}"),
                "a server by this name is already set up",
            ));
        }
        s.mcp_servers.insert(name, config);
        settings::validate(s)
    })
}

/// Adds the servers in `text`, or in the project's own MCP file when `text` is `None`;
/// returns the names added. Not trusted here: the trust screen lists what they would do.
pub fn import(root: &Path, text: Option<String>) -> AppResult<Vec<String>> {
    let text = match text {
        Some(t) => t,
        None => match read_project_file(root).map_err(|e| invalid(e.to_string()))? {
            Some((_, text)) => text,
            None => {
                return Err(invalid(
                    "this project has no .mcp.json, .cursor/mcp.json or .vscode/mcp.json",
                ));
            }
        },
    };
    let servers = parse(&text).map_err(|e| invalid(e.to_string()))?;
    let mut s = projects::load_settings(root)?;
    let added = merge(&mut s.mcp_servers, servers).map_err(|e| invalid(e.to_string()))?;
    settings::save(root, &s).map_err(ToAppError::app_error)?;
    tracing::info!(project = %root.display(), servers = added.len(), "MCP servers imported");
    Ok(added)
}

/// Stores (or with `None` removes) the keychain value of an MCP server's `${NAME}`.
pub fn set_value(
    keys: &dyn paddock_host::KeyStore,
    name: &str,
    value: Option<&str>,
) -> AppResult<()> {
    let name = name.trim();
    let valid = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(invalid(
            "a variable name has letters, digits and _ (e.g. GITHUB_TOKEN)",
        ));
    }
    match value {
        Some(v) if !v.is_empty() => keys.set_var(name, v),
        _ => keys.delete_var(name),
    }
    .map_err(ToAppError::app_error)
}

#[tauri::command]
pub async fn set_mcp_value(
    state: State<'_, Desktop>,
    name: String,
    value: Option<String>,
) -> Result<()> {
    let keys = state.keys();
    tauri::async_runtime::spawn_blocking(move || set_value(&*keys, &name, value.as_deref()))
        .await
        .map_err(crate::error::internal)?
}

#[tauri::command]
pub async fn add_mcp_server(
    state: State<'_, Desktop>,
    project: String,
    name: String,
    config: McpServerConfig,
) -> Result<()> {
    add(
        &projects::canonical(&project)?,
        state.trust(),
        &name,
        config,
    )
}

#[tauri::command]
pub async fn import_mcp_servers(project: String, text: Option<String>) -> Result<Vec<String>> {
    import(&projects::canonical(&project)?, text)
}
