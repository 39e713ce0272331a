//! `paddock doctor`: is everything a run needs in place? One line per check, each saying
//! ok, warn or fail and what to do about it.

use std::time::Duration;

use paddock_host::settings::settings_path;
use paddock_host::trust::TrustStore;
use paddock_host::{
    ApiKey, Connection, KeyError, KeyStore, Keychain, LiveProject, Project, Resolved, RunOptions,
    ServerPath,
};
use paddock_protocol::{
    McpServerState, ProjectSettings, ProtectionState, ProviderKind, SandboxStatus, ToolCallMode,
};

use crate::cli::ModelArgs;
use crate::exit::{CliError, Code};
use crate::files::project_dir;
use crate::output;

/// The longest the provider check waits for an answer.
const PROVIDER_TIMEOUT: Duration = Duration::from_secs(15);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Ok,
    Warn,
    Fail,
}

#[derive(Default)]
struct Report {
    failed: bool,
}

impl Report {
    fn line(&mut self, level: Level, what: &str, text: &str) {
        let tag = match level {
            Level::Ok => "ok  ",
            Level::Warn => "warn",
            Level::Fail => {
                self.failed = true;
                "fail"
            }
        };
        output::out(&format!("{tag}  {what}: {text}\n"));
    }

    fn detail(&self, text: &str) {
        output::out(&format!("        {text}\n"));
    }
}

pub async fn run(args: &ModelArgs, probe: bool) -> Result<Code, CliError> {
    let dir = project_dir(args.project.as_deref())?;
    let root = std::fs::canonicalize(&dir)
        .map_err(|e| CliError::failure(format!("cannot open {}: {e}", dir.display())))?;
    let mut report = Report::default();

    let options = RunOptions {
        provider: args.provider,
        model: args.model.clone(),
        base_url: args.base_url.clone(),
        ..RunOptions::default()
    };
    let store = TrustStore::open_default().unwrap_or_else(|e| {
        report.line(Level::Fail, "trust", &e.to_string());
        // No record to read: nothing the folder asks for is trusted.
        TrustStore::new(std::path::PathBuf::new())
    });
    // Doctor starts nothing and sends nothing the folder's trust does not cover.
    let resolved = Resolved::load_lenient(&store, &root, &options);
    settings_lines(&mut report, &root, &resolved);
    policy_line(&mut report, &resolved);
    let waiting = trust(&mut report, &resolved);
    let resolved = match resolved.with_options(&options) {
        Ok(r) => r,
        Err(e) => {
            report.line(Level::Fail, "options", &e.to_string());
            return Ok(Code::Failure);
        }
    };
    let project = resolved.project();
    sandbox(&mut report, &project.sandbox_status());
    let key = keys(&mut report, project.settings());
    // What waits for trust is not checked: say so, rather than fail on the defaults.
    let waits = |prefix: &str| waiting.iter().any(|k| k.starts_with(prefix));
    if waits("baseUrl") || waits("provider") {
        report.line(
            Level::Warn,
            "provider",
            "not checked: this folder's provider or address waits for trust (above)",
        );
    } else {
        provider(&mut report, project.settings(), key.clone()).await;
        if probe {
            tool_probe(&mut report, project.settings(), key).await;
        }
    }
    if waits("mcpServers") {
        report.line(
            Level::Warn,
            "mcp",
            "not started: this folder's MCP servers wait for trust (above)",
        );
    } else {
        mcp(&mut report, &project).await;
    }
    Ok(if report.failed {
        Code::Failure
    } else {
        Code::Success
    })
}

/// Reports the machine's managed policy: none, what it fixes, or broken (runs stop).
fn policy_line(report: &mut Report, resolved: &Resolved) {
    let policy = resolved.policy();
    if let Some(e) = resolved.policy_error() {
        report.line(Level::Fail, "policy", e);
    } else if policy.is_empty() {
        report.line(Level::Ok, "policy", "no managed policy on this machine");
    } else {
        let files: Vec<String> = policy
            .files
            .iter()
            .map(|f| f.display().to_string())
            .collect();
        report.line(
            Level::Ok,
            "policy",
            &format!(
                "managed by {}: {}",
                files.join(", "),
                policy.summary().join("; ")
            ),
        );
    }
}

/// Reports the settings file: valid, absent (defaults) or broken (defaults meanwhile).
fn settings_lines(report: &mut Report, root: &std::path::Path, resolved: &Resolved) {
    let path = settings_path(root);
    match resolved.settings_error() {
        None if path.exists() => report.line(
            Level::Ok,
            "settings",
            &format!("{} is valid", path.display()),
        ),
        None => report.line(
            Level::Ok,
            "settings",
            &format!("no {}; using defaults", path.display()),
        ),
        Some(e) => report.line(
            Level::Fail,
            "settings",
            &format!("{e}. Fix the file, or move it away to start from defaults"),
        ),
    }
}

/// Reports the folder's trust; returns the keys of the fields left out for want of it.
fn trust(report: &mut Report, resolved: &Resolved) -> Vec<String> {
    if let Some(e) = &resolved.trust().error {
        report.line(Level::Fail, "trust", e);
    }
    let pending = resolved.pending();
    if pending.is_empty() {
        report.line(
            Level::Ok,
            "trust",
            "nothing in the settings waits for trust",
        );
    } else {
        report.line(
            Level::Warn,
            "trust",
            &format!(
                "{} setting(s) not applied and not checked (nothing was started or sent for \
                 them) until you trust the folder with `paddock trust`:",
                pending.len()
            ),
        );
        for item in pending {
            report.detail(&format!("{} [{}]", item.what, item.key));
        }
    }
    pending.iter().map(|item| item.key.clone()).collect()
}

fn sandbox(report: &mut Report, status: &SandboxStatus) {
    if status.fully_confined {
        report.line(Level::Ok, "sandbox", &status.summary);
    } else if status.bash_runs {
        report.line(
            Level::Warn,
            "sandbox",
            &format!(
                "{}; bash runs behind the wall this host allows (each protection below)",
                status.summary
            ),
        );
    } else {
        report.line(
            Level::Warn,
            "sandbox",
            &format!(
                "{}; bash is withheld (the other tools work). Install bubblewrap or use a \
                 kernel with Landlock and user namespaces, or set \"allowUnconfinedBash\": \
                 true to run bash unconfined",
                status.summary
            ),
        );
    }
    report.detail(&format!(
        "workspace: {} ({})",
        status.workspace_root,
        status.workspace_mode.as_str()
    ));
    for e in &status.engines {
        if e.works {
            report.detail(&format!("engine {}: works here", e.engine));
        } else {
            report.detail(&format!("engine {}: not here — {}", e.engine, e.why));
            if let Some(fix) = &e.fix {
                report.detail(&format!("  fix: {fix}"));
            }
        }
    }
    for p in &status.protections {
        let state = match p.state {
            ProtectionState::Enforced => "enforced",
            ProtectionState::Partial => "partial",
            ProtectionState::Absent => "absent",
            ProtectionState::Granted => "granted",
        };
        report.detail(&format!("{}: {state} — {}", p.kind.label(), p.detail));
        if let Some(fix) = &p.fix {
            report.detail(&format!("  fix: {fix}"));
        }
    }
    if !status.writable_roots.is_empty() {
        report.detail(&format!(
            "bash may write: {}",
            status.writable_roots.join(", ")
        ));
    }
    if !status.readable_roots.is_empty() {
        report.detail(&format!(
            "bash may read in the hidden homes (read-only): {}",
            status.readable_roots.join(", ")
        ));
    }
}

/// Checks the keychain and finds the provider's key (environment first, like a run).
fn keys(report: &mut Report, s: &ProjectSettings) -> Option<ApiKey> {
    let kind = provider_kind(s);
    let var = kind.key_env_var();
    let from_env = ApiKey::from_env(var);
    let needed = kind.requires_key() && from_env.is_none();
    let stored = match Keychain.probe().and_then(|()| Keychain.get(kind)) {
        Ok(stored) => {
            report.line(Level::Ok, "keychain", "reachable");
            stored.filter(|k| !k.is_empty()).map(ApiKey::new)
        }
        Err(e) => {
            let level = if needed { Level::Fail } else { Level::Warn };
            let hint = match e {
                KeyError::Unavailable(_) => format!("{e}. Headless runs can use {var} instead"),
                KeyError::Failed(_) => e.to_string(),
            };
            report.line(level, "keychain", &hint);
            None
        }
    };
    match (&from_env, &stored) {
        (Some(_), _) => report.line(Level::Ok, "api key", &format!("from {var}")),
        (None, Some(_)) => report.line(Level::Ok, "api key", "stored in the keychain"),
        (None, None) if kind.requires_key() => report.line(
            Level::Fail,
            "api key",
            &format!(
                "none for {}: set {var}, or save a key in the Paddock app's settings",
                kind.label()
            ),
        ),
        (None, None) => report.line(
            Level::Ok,
            "api key",
            &format!("none (local servers usually need none; set {var} if yours does)"),
        ),
    }
    from_env.or(stored)
}

async fn provider(report: &mut Report, s: &ProjectSettings, key: Option<ApiKey>) {
    let kind = provider_kind(s);
    let model = s.model.as_deref();
    if model.is_none() {
        report.line(
            Level::Warn,
            "model",
            "none set: pass --model or set \"model\" in .paddock/settings.json",
        );
    }
    let connection = match Connection::new(kind, s.base_url.as_deref(), key, true) {
        Ok(c) => c,
        Err(e) => {
            report.line(Level::Fail, "provider", &format!("{kind}: {e}"));
            return;
        }
    };
    let what = format!("{kind} at {}", connection.base_url());
    match tokio::time::timeout(PROVIDER_TIMEOUT, connection.test(model)).await {
        Err(_) => report.line(
            Level::Fail,
            "provider",
            &format!(
                "{what} did not answer within {} s. Check that the server runs and the \
                 base URL is right",
                PROVIDER_TIMEOUT.as_secs()
            ),
        ),
        Ok(Err(e)) => report.line(
            Level::Fail,
            "provider",
            &format!("{what}: {e}. Check the base URL (--base-url / \"baseUrl\") and the key"),
        ),
        Ok(Ok(r)) => {
            report.line(
                Level::Ok,
                "provider",
                &format!(
                    "{what} answered in {} ms, {} model(s) listed",
                    r.latency_ms,
                    r.models.len()
                ),
            );
            if let (Some(m), Some(false)) = (model, r.model_available) {
                let offered: Vec<&str> = r.models.iter().take(8).map(|i| i.id.as_str()).collect();
                report.line(
                    Level::Warn,
                    "model",
                    &format!(
                        "'{m}' is not among the server's models ({}). Pick one of them with \
                         --model or \"model\"",
                        offered.join(", ")
                    ),
                );
            } else if let Some(m) = model {
                report.line(Level::Ok, "model", m);
            }
        }
    }
}

async fn mcp(report: &mut Report, project: &Project) {
    let configs = &project.settings().mcp_servers;
    if configs.is_empty() {
        report.line(Level::Ok, "mcp", "no servers configured");
        return;
    }
    let live = LiveProject::new(project.root().to_path_buf(), ServerPath::Inherit);
    let mcp = live.mcp(project.settings());
    mcp.wait_ready().await;
    for status in mcp.statuses() {
        let what = format!("mcp server '{}'", status.name);
        match &status.state {
            McpServerState::Running { tools } => {
                report.line(
                    Level::Ok,
                    &what,
                    &format!("running, {} tool(s)", tools.len()),
                );
            }
            McpServerState::Disabled => report.line(Level::Ok, &what, "disabled in the settings"),
            McpServerState::Failed { error } | McpServerState::Exited { reason: error } => {
                report.line(
                    Level::Fail,
                    &what,
                    &format!(
                        "{error}. Check its command/url in \"mcpServers\", or set \
                         \"disabled\": true"
                    ),
                );
                if let Some(tail) = &status.stderr_tail {
                    for l in tail
                        .lines()
                        .rev()
                        .take(5)
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev()
                    {
                        report.detail(&format!("stderr: {l}"));
                    }
                }
            }
            McpServerState::Starting => report.line(Level::Warn, &what, "still starting"),
        }
        for w in &status.warnings {
            report.line(Level::Warn, &what, w);
        }
    }
    live.shutdown().await;
}

fn provider_kind(s: &ProjectSettings) -> ProviderKind {
    s.provider.unwrap_or(ProviderKind::OpenAiCompatible)
}

/// `--probe`: how the model answers a request offering one harmless tool.
async fn tool_probe(report: &mut Report, s: &ProjectSettings, key: Option<ApiKey>) {
    let Some(model) = s.model.as_deref() else {
        report.line(Level::Warn, "tool calls", "not tested: no model is set");
        return;
    };
    let connection = match Connection::with_tool_calling(
        provider_kind(s),
        s.base_url.as_deref(),
        key,
        false,
        s.tool_calling.unwrap_or_default(),
    ) {
        Ok(c) => c,
        Err(e) => {
            report.line(Level::Fail, "tool calls", &e.to_string());
            return;
        }
    };
    match connection.probe_tools(model).await {
        Err(e) => report.line(Level::Fail, "tool calls", &format!("the probe failed: {e}")),
        Ok(p) => {
            let level = match (p.mode, p.streaming) {
                (ToolCallMode::Native, true) => Level::Ok,
                _ => Level::Warn,
            };
            let mode = match p.mode {
                ToolCallMode::Native => "native",
                ToolCallMode::TextFallback => "read from the text (fallback)",
                ToolCallMode::Prompted => "prompted (tools described in the prompt)",
                ToolCallMode::None => "none",
            };
            report.line(level, "tool calls", &format!("{mode}: {}", p.detail));
            if let Some(why) = &p.prompted_from_now_on {
                report.detail(&format!(
                    "runs use prompted tool calls with this server and model from now on: {why} \
                     (\"toolCalling\" set to \"native\" or \"prompted\" decides instead)"
                ));
            }
            report.detail(&format!(
                "streaming with tools: {}; first output after {}; {} ms in all",
                if p.streaming {
                    "yes"
                } else {
                    "no (asked unstreamed)"
                },
                p.first_token_ms
                    .map_or_else(|| "-".to_owned(), |ms| format!("{ms} ms")),
                p.total_ms
            ));
            report.detail(&format!(
                "context window: {} tokens ({})",
                p.context_window, p.window_source
            ));
            for advice in &p.advice {
                report.detail(&format!("advice: {advice}"));
            }
        }
    }
}
