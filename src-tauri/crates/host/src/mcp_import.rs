//! MCP servers pasted from other tools: `.mcp.json` (Claude Code, Cline, Cursor:
//! `mcpServers`), `.vscode/mcp.json` (VS Code: `servers`, with `inputs`), or a bare map of
//! servers. Entries keep their `${VAR}`s; fields no tool writes are refused by name.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use paddock_protocol::McpServerConfig;
use serde_json::Value;

use crate::settings::FieldError;

/// Where a project's own MCP file may be, in the order they are looked for.
pub const PROJECT_FILES: [&str; 3] = [".mcp.json", ".cursor/mcp.json", ".vscode/mcp.json"];
/// Largest file or text imported.
pub const MAX_IMPORT_BYTES: usize = 1024 * 1024;

/// The servers in a pasted or read MCP configuration, with the key they were under.
pub fn parse(text: &str) -> Result<BTreeMap<String, McpServerConfig>, FieldError> {
    if text.len() > MAX_IMPORT_BYTES {
        return Err(FieldError::new(
            "mcpServers",
            format!("more than {MAX_IMPORT_BYTES} bytes"),
        ));
    }
    let value: Value = serde_json::from_str(text).map_err(|e| {
        FieldError::new(
            "mcpServers",
            format!("not JSON (line {}, column {}): {e}", e.line(), e.column()),
        )
    })?;
    let Value::Object(top) = value else {
        return Err(FieldError::new("mcpServers", "expected a JSON object"));
    };
    let (key, servers) = match (top.get("mcpServers"), top.get("servers")) {
        (Some(s), None) => ("mcpServers", s.clone()),
        (None, Some(s)) => ("servers", s.clone()),
        (Some(_), Some(_)) => {
            return Err(FieldError::new(
                "servers",
                "has both `mcpServers` and `servers`; paste one",
            ));
        }
        // A bare map of servers, as some READMEs show it.
        (None, None) => ("", Value::Object(top.clone())),
    };
    if !key.is_empty() {
        let known = [key, "$schema", "inputs"];
        if let Some(other) = top.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(FieldError::new(
                other.clone(),
                "unknown top-level field (expected mcpServers or servers)",
            ));
        }
    }
    let Value::Object(map) = servers else {
        return Err(FieldError::new(
            key,
            "expected an object of servers by name",
        ));
    };
    let mut out = BTreeMap::new();
    for (name, entry) in map {
        let field = if key.is_empty() {
            name.clone()
        } else {
            format!("{key}.{name}")
        };
        let config: McpServerConfig = serde_path_to_error::deserialize(entry).map_err(|e| {
            let at = e.path().to_string();
            let field = if at == "." {
                field.clone()
            } else {
                format!("{field}.{at}")
            };
            FieldError::new(field, e.into_inner().to_string())
        })?;
        if let Err(e) = config.transport() {
            return Err(FieldError::new(field, e.to_string()));
        }
        if let Err((at, e)) = paddock_mcp::vars::server_vars(&config) {
            return Err(FieldError::new(format!("{field}.{at}"), e));
        }
        out.insert(name, config);
    }
    Ok(out)
}

/// The first MCP file of the project and its text; `None` when it has none. Read as any
/// file the project's authors wrote: small, regular, at once.
pub fn read_project_file(root: &Path) -> Result<Option<(PathBuf, String)>, FieldError> {
    let Some(path) = PROJECT_FILES
        .iter()
        .map(|f| root.join(f))
        .find(|p| p.is_file())
    else {
        return Ok(None);
    };
    let text = paddock_guard::read_untrusted(&path, MAX_IMPORT_BYTES as u64)
        .map_err(|e| FieldError::new("mcpServers", e.to_string()))?;
    Ok(Some((path, text)))
}

/// Adds `servers` to `existing`; a name already there with another entry is refused (the
/// user renames or removes one first), the same entry again is no change.
pub fn merge(
    existing: &mut BTreeMap<String, McpServerConfig>,
    servers: BTreeMap<String, McpServerConfig>,
) -> Result<Vec<String>, FieldError> {
    if let Some(name) = servers
        .iter()
        .find(|(n, c)| existing.get(*n).is_some_and(|e| e != *c))
        .map(|(n, _)| n)
    {
        return Err(FieldError::new(
            format!("mcpServers.{name}"),
            "a different server by this name is already set up; rename or remove one",
        ));
    }
    let added: Vec<String> = servers
        .keys()
        .filter(|n| !existing.contains_key(*n))
        .cloned()
        .collect();
    existing.extend(servers);
    Ok(added)
}
