//! Reads and writes `<project>/.paddock/settings.json`. A broken or newer file is a clear
//! error naming the line or field, and is never overwritten.

use std::path::{Path, PathBuf};

use paddock_protocol::{ProjectSettings, SETTINGS_VERSION};
use serde_json::Value;

use paddock_core::GrantPolicy;
use paddock_guard::{UntrustedFileError, read_untrusted};

pub const SETTINGS_DIR: &str = ".paddock";
pub const SETTINGS_FILE: &str = "settings.json";
/// Largest settings file read (a real one is a few kilobytes).
pub const MAX_SETTINGS_BYTES: u64 = 1024 * 1024;
/// Longest per-call time limit an MCP server may be given (`timeoutSecs`).
pub use crate::field_error::FieldError;
pub use paddock_mcp::MAX_CALL_TIMEOUT_SECS as MAX_TIMEOUT_SECS;

#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Not a regular file, too big, not text: refused before parsing.
    #[error(transparent)]
    File(#[from] UntrustedFileError),
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} line {line}, column {column}: {message}")]
    Syntax {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{path}: `{field}`: {message}")]
    Field {
        path: PathBuf,
        field: String,
        message: String,
    },
    #[error(
        "{path} has settings version {found}; this Paddock reads version {SETTINGS_VERSION}. \
         Update Paddock, or move the file away to start fresh"
    )]
    Version { path: PathBuf, found: String },
    #[error("{path} is not valid ({problem}); fix or move it before saving, it was left as is")]
    Unsafe { path: PathBuf, problem: String },
}

pub fn settings_path(project: &Path) -> PathBuf {
    project.join(SETTINGS_DIR).join(SETTINGS_FILE)
}

/// The project's settings; defaults when the file does not exist. The file was written by
/// whoever wrote the project: it is read only as a small regular file, at once.
pub fn load(project: &Path) -> Result<ProjectSettings, SettingsError> {
    let path = settings_path(project);
    match read_untrusted(&path, MAX_SETTINGS_BYTES) {
        Ok(text) => parse(&text, &path),
        Err(e) if e.is_missing() => Ok(ProjectSettings::default()),
        Err(e) => Err(e.into()),
    }
}

/// Parses and validates settings text; `path` only names the file in errors.
pub fn parse(text: &str, path: &Path) -> Result<ProjectSettings, SettingsError> {
    let raw: Value = serde_json::from_str(text).map_err(|e| SettingsError::Syntax {
        path: path.to_owned(),
        line: e.line(),
        column: e.column(),
        message: e
            .to_string()
            .split(" at line")
            .next()
            .unwrap_or_default()
            .to_owned(),
    })?;
    match raw.get("version") {
        Some(Value::Number(n)) if n.as_u64() == Some(u64::from(SETTINGS_VERSION)) => {}
        Some(other) => {
            return Err(SettingsError::Version {
                path: path.to_owned(),
                found: other.to_string(),
            });
        }
        None => {
            return Err(SettingsError::Field {
                path: path.to_owned(),
                field: "version".into(),
                message: format!("missing; add \"version\": {SETTINGS_VERSION}"),
            });
        }
    }
    let settings: ProjectSettings =
        serde_path_to_error::deserialize(&raw).map_err(|e| SettingsError::Field {
            path: path.to_owned(),
            field: e.path().to_string(),
            message: e.into_inner().to_string(),
        })?;
    validate(&settings).map_err(|e| in_file(e, path))?;
    Ok(settings)
}

/// The field's error as the settings file's.
fn in_file(e: FieldError, path: &Path) -> SettingsError {
    SettingsError::Field {
        path: path.to_owned(),
        field: e.field,
        message: e.message,
    }
}

/// Checks what serde cannot: MCP entries, teammate names, numbers that must be positive.
/// The first problem found is the one reported, in the file's reading order.
pub fn validate(s: &ProjectSettings) -> Result<(), FieldError> {
    if s.max_output_tokens == Some(0) {
        return Err(FieldError::new(
            "maxOutputTokens",
            "must be at least 1 (leave it out for the provider's default)",
        ));
    }
    check_auto_run(s)?;
    check_server_names(s)?;
    check_teammates(s)?;
    crate::rules::compile(s)?;
    crate::pricing::validate(s)?;
    crate::hooks::validate(s)?;
    check_limits(s)?;
    check_paths(s)?;
    crate::network::policy(&s.network)?;
    check_servers(s)
}

/// `autoRunFiles`: names or paths inside the project.
fn check_auto_run(s: &ProjectSettings) -> Result<(), FieldError> {
    for (i, pattern) in s.auto_run_files.iter().enumerate() {
        let parts: Vec<&str> = pattern.split('/').filter(|p| !p.is_empty()).collect();
        if parts.is_empty() || parts.contains(&"..") || pattern.chars().any(char::is_control) {
            return Err(FieldError::new(
                format!("autoRunFiles[{i}]"),
                "give a file name or a path inside the project (e.g. Taskfile.yml, .idea/)",
            ));
        }
    }
    Ok(())
}

/// Each MCP server's transport and name.
fn check_server_names(s: &ProjectSettings) -> Result<(), FieldError> {
    for (name, server) in &s.mcp_servers {
        if let Err(e) = server.transport() {
            return Err(FieldError::new(format!("mcpServers.{name}"), e.to_string()));
        }
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        {
            return Err(FieldError::new(
                format!("mcpServers.{name}"),
                "server names use letters, digits, '-', '_' and '.'",
            ));
        }
    }
    Ok(())
}

/// Teammates: named, each name once.
fn check_teammates(s: &ProjectSettings) -> Result<(), FieldError> {
    let mut seen = std::collections::BTreeSet::new();
    for (i, t) in s.teammates.iter().enumerate() {
        if t.name.trim().is_empty() {
            return Err(FieldError::new(
                format!("teammates[{i}].name"),
                "must not be empty",
            ));
        }
        if !seen.insert(t.name.as_str()) {
            return Err(FieldError::new(
                format!("teammates[{i}].name"),
                format!("'{}' is used twice", t.name),
            ));
        }
    }
    Ok(())
}

/// The numbers: turns, the context window, when to compact.
fn check_limits(s: &ProjectSettings) -> Result<(), FieldError> {
    if s.max_turns == Some(0) {
        return Err(FieldError::new("maxTurns", "must be at least 1"));
    }
    if s.context_window
        .is_some_and(|w| !(MIN_CONTEXT_WINDOW..=MAX_CONTEXT_WINDOW).contains(&w))
    {
        return Err(FieldError::new(
            "contextWindow",
            format!("between {MIN_CONTEXT_WINDOW} and {MAX_CONTEXT_WINDOW} tokens"),
        ));
    }
    if s.compaction
        .is_some_and(|c| !(10..=95).contains(&c.threshold_percent))
    {
        return Err(FieldError::new(
            "compaction.thresholdPercent",
            "between 10 and 95 (percent of the context window)",
        ));
    }
    Ok(())
}

/// `hiddenPaths` and `readablePaths`: absolute, or under the home folder.
fn check_paths(s: &ProjectSettings) -> Result<(), FieldError> {
    let paths = [
        ("hiddenPaths", &s.hidden_paths),
        ("readablePaths", &s.readable_paths),
    ];
    for (field, list) in paths {
        for (i, path) in list.iter().enumerate() {
            if !(path.starts_with("~/") || std::path::Path::new(path).is_absolute()) {
                return Err(FieldError::new(
                    format!("{field}[{i}]"),
                    "give an absolute path, or one under the home folder as ~/...",
                ));
            }
        }
    }
    Ok(())
}

/// Each MCP server's time limit, variables and auto-approved tools.
fn check_servers(s: &ProjectSettings) -> Result<(), FieldError> {
    for (name, server) in &s.mcp_servers {
        if server
            .call_timeout_secs()
            .is_some_and(|t| t > MAX_TIMEOUT_SECS)
        {
            let field = if server.timeout_secs.is_some() {
                "timeoutSecs"
            } else {
                "timeout"
            };
            return Err(FieldError::new(
                format!("mcpServers.{name}.{field}"),
                format!("at most {MAX_TIMEOUT_SECS} seconds (a day)"),
            ));
        }
        if let Err((field, e)) = paddock_mcp::vars::server_vars(server) {
            return Err(FieldError::new(format!("mcpServers.{name}.{field}"), e));
        }
        if server.auto_approve.iter().any(|t| t.trim().is_empty()) {
            return Err(FieldError::new(
                format!("mcpServers.{name}.autoApprove"),
                "tool names must not be empty",
            ));
        }
    }
    Ok(())
}

/// The smallest and largest context windows a setting may give.
pub const MIN_CONTEXT_WINDOW: u32 = 1_024;
pub const MAX_CONTEXT_WINDOW: u32 = 10_000_000;

/// Writes settings atomically (temp file, then rename). Refuses to replace a file that
/// does not parse: the user's text is never lost.
pub fn save(project: &Path, settings: &ProjectSettings) -> Result<(), SettingsError> {
    let path = settings_path(project);
    validate(settings).map_err(|e| in_file(e, &path))?;
    match read_untrusted(&path, MAX_SETTINGS_BYTES) {
        Ok(existing) => {
            if let Err(e) = parse(&existing, &path) {
                return Err(SettingsError::Unsafe {
                    path,
                    problem: e.to_string(),
                });
            }
        }
        Err(e) if e.is_missing() => {}
        Err(e) => {
            return Err(SettingsError::Unsafe {
                problem: e.to_string(),
                path,
            });
        }
    }
    let dir = path.parent().unwrap_or(project);
    let write_err = |source| SettingsError::Write {
        path: path.clone(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(write_err)?;
    let mut text =
        serde_json::to_string_pretty(settings).map_err(|e| write_err(std::io::Error::other(e)))?;
    text.push('\n');
    let tmp = dir.join(format!(".{SETTINGS_FILE}.tmp-{}", std::process::id()));
    std::fs::write(&tmp, text).map_err(write_err)?;
    std::fs::rename(&tmp, &path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        write_err(e)
    })
}

/// The kernel grant policy the settings describe (preset plus per-tool overrides).
/// A server's `autoApprove` tools are allowed unless `tools` names them.
pub fn grant_policy(s: &ProjectSettings) -> GrantPolicy {
    let auto = s
        .mcp_servers
        .iter()
        .filter(|(_, c)| !c.disabled)
        .flat_map(|(server, c)| {
            c.auto_approve
                .iter()
                .map(move |tool| paddock_mcp::tool_name(server, tool))
        })
        .filter(|name| !s.tools.contains_key(name))
        .collect::<Vec<_>>();
    GrantPolicy::from_overrides(
        s.preset,
        s.tools.iter().map(|(n, g)| (n.as_str(), *g)).chain(
            auto.iter()
                .map(|n| (n.as_str(), paddock_protocol::Grant::Allow)),
        ),
    )
}

/// The JSON schema of the settings file, as committed at `docs/settings.schema.json`.
pub fn json_schema() -> Value {
    let mut schema = schemars::schema_for!(ProjectSettings).to_value();
    if let Value::Object(map) = &mut schema {
        map.insert(
            "title".into(),
            Value::String("Paddock project settings (.paddock/settings.json)".into()),
        );
    }
    sorted(schema)
}

/// Keys in sorted order at every depth: serde_json's `preserve_order` (set for the workspace)
/// would otherwise keep schemars' order.
fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}
