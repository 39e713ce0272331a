//! All of a project's MCP servers: started together, their tools named and registered, their
//! status published, and stopped together.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use paddock_core::{Tool, ToolRegistry};
use paddock_protocol::{McpServerConfig, McpServerState, McpServerStatus, McpTransport};
use rmcp::model::Tool as RemoteTool;
use tokio::sync::watch;

use crate::lifeline::Lifeline;
use crate::naming::tool_name;
use crate::server::{self, Server, StartContext, StartError};
use crate::shell_path;
use crate::status::{Callback, STATUS_STDERR_CHARS, StatusBoard};
use crate::stderr::StderrLog;
use crate::tool::{DEFAULT_CALL_TIMEOUT, McpTool};
use crate::vars::{self, VarSource};

/// Longest per-call limit a server's `timeoutSecs` can set (a day).
pub const MAX_CALL_TIMEOUT_SECS: u64 = 24 * 60 * 60;

/// Time a server gets to launch, handshake and list its tools.
pub const DEFAULT_START_TIMEOUT: Duration = Duration::from_secs(30);
/// Time a running server gets to list its tools again after saying they changed.
const REFRESH_TIMEOUT: Duration = Duration::from_secs(10);
/// Largest `envFile` read.
const MAX_ENV_FILE_BYTES: u64 = 256 * 1024;

/// Which PATH stdio servers get.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ServerPath {
    /// Paddock's own (the CLI, started from a terminal).
    #[default]
    Inherit,
    /// The user's login shell's (the app, started from a launcher with a bare PATH).
    LoginShell,
    Fixed(String),
}

/// How the host wants servers run.
#[derive(Debug, Clone)]
pub struct McpOptions {
    pub start_timeout: Duration,
    /// Per-call limit for servers whose settings have no `timeoutSecs`.
    pub call_timeout: Duration,
    pub path: ServerPath,
    /// The project folder: stdio servers run here, and a relative `cwd` starts here.
    pub base_dir: Option<PathBuf>,
    /// Variables of Paddock's environment that stdio servers do not inherit, e.g. the
    /// provider API key variables the host reads.
    pub hide_env: Vec<String>,
}

impl Default for McpOptions {
    fn default() -> Self {
        Self {
            start_timeout: DEFAULT_START_TIMEOUT,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            path: ServerPath::Inherit,
            base_dir: None,
            hide_env: Vec::new(),
        }
    }
}

struct Entry {
    server: Arc<Server>,
    stderr: StderrLog,
    /// Per-call limit of its tools.
    timeout: Duration,
}

/// The handle to a project's MCP servers. Dropping it kills every stdio server; call
/// [`McpServers::shutdown`] for a graceful stop.
pub struct McpServers {
    options: McpOptions,
    board: StatusBoard,
    servers: Mutex<BTreeMap<String, Entry>>,
    failed_stderr: Mutex<BTreeMap<String, StderrLog>>,
    tools: Mutex<Vec<Arc<McpTool>>>,
}

impl McpServers {
    pub fn new(options: McpOptions) -> Self {
        Self::build(options, None)
    }

    /// Also calls `on_status` with every status change (e.g. to forward it to a UI).
    pub fn with_callback(
        options: McpOptions,
        on_status: impl Fn(&McpServerStatus) + Send + Sync + 'static,
    ) -> Self {
        Self::build(options, Some(Arc::new(on_status)))
    }

    fn build(options: McpOptions, callback: Option<Callback>) -> Self {
        Self {
            options,
            board: StatusBoard::new(callback),
            servers: Mutex::default(),
            failed_stderr: Mutex::default(),
            tools: Mutex::default(),
        }
    }

    /// Every status change, as a map from server name to status.
    pub fn subscribe(&self) -> watch::Receiver<BTreeMap<String, McpServerStatus>> {
        self.board.subscribe()
    }

    /// Every configured server's status, by name.
    pub fn statuses(&self) -> Vec<McpServerStatus> {
        self.board.snapshot()
    }

    pub fn status(&self, name: &str) -> Option<McpServerStatus> {
        self.board.get(name)
    }

    /// Everything a stdio server wrote to stderr (capped at 1 MB), for diagnostics.
    pub fn stderr(&self, name: &str) -> Option<String> {
        if let Some(e) = lock(&self.servers).get(name) {
            return Some(e.stderr.text());
        }
        lock(&self.failed_stderr).get(name).map(StderrLog::text)
    }

    /// The process id of a running stdio server (diagnostics).
    pub fn pid(&self, name: &str) -> Option<u32> {
        lock(&self.servers).get(name).and_then(|e| e.server.pid())
    }

    /// The tools of every running server, in name order.
    pub fn tools(&self) -> Vec<Arc<McpTool>> {
        lock(&self.tools).clone()
    }

    /// The same tools as trait objects, for hosts that register them themselves.
    pub fn runtime_tools(&self) -> Vec<Arc<dyn Tool>> {
        self.tools()
            .into_iter()
            .map(|t| t as Arc<dyn Tool>)
            .collect()
    }

    /// Starts every enabled server at once and waits until each is running, has failed or
    /// ran out of time. One server's trouble never affects another's start.
    pub async fn start(&self, configs: &BTreeMap<String, McpServerConfig>) {
        self.start_with_vars(configs, &BTreeMap::new()).await;
    }

    /// [`Self::start`], with values for `${NAME}`s that Paddock's environment does not set
    /// (from the keychain).
    pub async fn start_with_vars(
        &self,
        configs: &BTreeMap<String, McpServerConfig>,
        vars: &BTreeMap<String, String>,
    ) {
        let mut wanted = Vec::new();
        for (name, config) in configs {
            if config.disabled {
                self.board.set(name, McpServerState::Disabled, None);
            } else if lock(&self.servers).contains_key(name) {
                self.board
                    .warn(name, "already running; not started again".to_owned());
            } else {
                match prepare(
                    config,
                    self.options.base_dir.as_deref(),
                    &self.options.hide_env,
                    vars,
                ) {
                    Ok(config) => {
                        self.board.set(name, McpServerState::Starting, None);
                        wanted.push((name, config));
                    }
                    Err(error) => {
                        tracing::warn!("MCP server '{name}' not started: {error}");
                        self.board.set(name, McpServerState::Failed { error }, None);
                    }
                }
            }
        }
        let wanted: Vec<(&String, &McpServerConfig)> =
            wanted.iter().map(|(n, c)| (*n, c)).collect();
        let path = self.server_path(&wanted).await;
        let limit = self.options.start_timeout;
        let starts = wanted.iter().map(|&(name, config)| {
            let ctx = StartContext {
                base_dir: self.options.base_dir.as_deref(),
                path: path.as_deref(),
                hide_env: &self.options.hide_env,
                stderr: StderrLog::new(),
            };
            async move {
                let result = tokio::time::timeout(limit, server::start(name, config, &ctx))
                    .await
                    .unwrap_or_else(|_| {
                        Err(StartError::Launch(format!(
                            "did not finish starting within {} s",
                            limit.as_secs()
                        )))
                    });
                // Failures show at once; a slow server does not delay them.
                let result = match result {
                    Ok(server) => Some(Arc::new(server)),
                    Err(error) => {
                        self.report_failure(name, error.to_string(), &ctx.stderr)
                            .await;
                        None
                    }
                };
                (name, config, ctx.stderr, result)
            }
        });
        let results = futures_util::future::join_all(starts).await;

        // Names are given in server-name order, so who wins a collision never varies.
        for (name, config, stderr, result) in results {
            let Some(server) = result else { continue };
            // Bounded whatever the settings say: a timer far in the future overflows.
            let timeout = config
                .call_timeout_secs()
                .filter(|s| *s > 0)
                .map_or(self.options.call_timeout, |s| {
                    Duration::from_secs(s.min(MAX_CALL_TIMEOUT_SECS))
                });
            let names = self.add_tools(name, &server, &server.tools, timeout);
            self.board
                .set(name, McpServerState::Running { tools: names }, None);
            watch_exit(
                self.board.clone(),
                name.clone(),
                server.lifeline.clone(),
                stderr.clone(),
            );
            let entry = Entry {
                server,
                stderr,
                timeout,
            };
            lock(&self.servers).insert(name.clone(), entry);
        }
    }

    /// Names one server's tools and adds them, leaving out (with a warning) any whose name
    /// another server's tool already has; returns the names added.
    fn add_tools(
        &self,
        name: &str,
        server: &Arc<Server>,
        remote: &[RemoteTool],
        timeout: Duration,
    ) -> Vec<String> {
        let mut tools = lock(&self.tools);
        let mut taken: BTreeMap<String, (String, String)> = tools
            .iter()
            .map(|t| {
                let owner = (t.server_name().to_owned(), t.remote_name().to_owned());
                (t.spec().name.clone(), owner)
            })
            .collect();
        let mut names = Vec::new();
        let mut warnings = Vec::new();
        for remote in remote {
            let kernel_name = tool_name(name, &remote.name);
            if let Some((other_server, other_tool)) = taken.get(&kernel_name) {
                warnings.push(format!(
                    "tool '{}' was left out: its name {kernel_name} is already used by \
                     tool '{other_tool}' of server '{other_server}'",
                    remote.name
                ));
                continue;
            }
            taken.insert(
                kernel_name.clone(),
                (name.to_owned(), remote.name.to_string()),
            );
            names.push(kernel_name.clone());
            tools.push(Arc::new(McpTool::new(
                kernel_name,
                remote,
                server.clone(),
                timeout,
            )));
        }
        tools.sort_by(|a, b| a.spec().name.cmp(&b.spec().name));
        drop(tools);
        for warning in warnings {
            self.board.warn(name, warning);
        }
        names
    }

    /// Lists again the tools of every server that said its list changed (MCP
    /// `notifications/tools/list_changed`), so the next run and the grants screen see them.
    /// Hosts call this before building a run's tools. A server that cannot answer keeps its
    /// old tools, with a warning. Returns whether any tool list was replaced.
    pub async fn refresh_tools(&self) -> bool {
        let changed: Vec<(String, Arc<Server>, Duration)> = lock(&self.servers)
            .iter()
            .filter(|(_, e)| e.server.take_tools_changed())
            .map(|(name, e)| (name.clone(), e.server.clone(), e.timeout))
            .collect();
        let mut replaced = false;
        for (name, server, timeout) in changed {
            let listed = tokio::time::timeout(REFRESH_TIMEOUT, server.list_tools())
                .await
                .unwrap_or_else(|_| {
                    Err(format!(
                        "it did not list them within {} s",
                        REFRESH_TIMEOUT.as_secs()
                    ))
                });
            let remote = match listed {
                Ok(remote) => remote,
                Err(e) => {
                    self.board.warn(
                        &name,
                        format!("its tool list changed but could not be read again: {e}"),
                    );
                    continue;
                }
            };
            lock(&self.tools).retain(|t| t.server_name() != name);
            let names = self.add_tools(&name, &server, &remote, timeout);
            tracing::info!(
                "MCP server '{name}' changed its tools: {}",
                names.join(", ")
            );
            // A server that went away meanwhile keeps the status its exit gave it.
            if server.lifeline.reason().is_none() {
                self.board
                    .set(&name, McpServerState::Running { tools: names }, None);
            }
            replaced = true;
        }
        replaced
    }

    async fn report_failure(&self, name: &str, error: String, stderr: &StderrLog) {
        stderr.wait_closed(Duration::from_millis(200)).await;
        tracing::warn!("MCP server '{name}' failed to start: {error}");
        self.board.set(
            name,
            McpServerState::Failed { error },
            stderr.tail(STATUS_STDERR_CHARS),
        );
        lock(&self.failed_stderr).insert(name.to_owned(), stderr.clone());
    }

    /// Adds every MCP tool to `registry` as a runtime tool (skips preset and allow list,
    /// obeys the deny list). A name already in the registry is refused, never replaced;
    /// the returned warnings (also on the server's status) say which.
    pub fn register(&self, registry: &mut ToolRegistry) -> Vec<String> {
        let mut warnings = Vec::new();
        for tool in self.tools() {
            let name = tool.spec().name.clone();
            let server = tool.server_name().to_owned();
            if let Err(e) = registry.register_runtime(tool as Arc<dyn Tool>) {
                let warning = format!("tool {name} was not registered: {e}");
                self.board.warn(&server, warning.clone());
                self.board.forget_tool(&server, &name);
                warnings.push(warning);
            }
        }
        warnings
    }

    /// Stops every server: closes its connection, lets stdio processes exit, kills the rest.
    pub async fn shutdown(&self) {
        let servers: Vec<Arc<Server>> = lock(&self.servers)
            .values()
            .map(|e| e.server.clone())
            .collect();
        futures_util::future::join_all(servers.iter().map(|s| s.shutdown())).await;
    }

    async fn server_path(&self, wanted: &[(&String, &McpServerConfig)]) -> Option<String> {
        let any_stdio = wanted
            .iter()
            .any(|(_, c)| matches!(c.transport(), Ok(McpTransport::Stdio { .. })));
        match &self.options.path {
            ServerPath::Inherit => None,
            ServerPath::Fixed(p) => Some(p.clone()),
            ServerPath::LoginShell if any_stdio => {
                shell_path::login_shell_path_or_current(shell_path::DEFAULT_TIMEOUT).await
            }
            ServerPath::LoginShell => None,
        }
    }
}

/// The entry as it starts: `${VAR}`s replaced from Paddock's environment, `envFile` read
/// (relative to `base_dir`) under `env`. The error says which field or file is wrong.
/// Variables in `hide` (the provider keys) are never handed to a server.
fn prepare(
    config: &McpServerConfig,
    base_dir: Option<&Path>,
    hide: &[String],
    vars: &BTreeMap<String, String>,
) -> Result<McpServerConfig, String> {
    if let Some(name) = vars::server_vars(config)
        .map_err(|(field, e)| format!("{field}: {e}"))?
        .into_iter()
        .find(|v| hide.contains(v))
    {
        return Err(format!(
            "`${{{name}}}` is a provider API key, which Paddock never gives to MCP servers"
        ));
    }
    let workspace = base_dir.map(|d| d.to_string_lossy().into_owned());
    let source = VarSource {
        lookup: &|name| std::env::var(name).ok().or_else(|| vars.get(name).cloned()),
        workspace: workspace.as_deref(),
    };
    let mut resolved = vars::resolve_server(config, &source)?;
    if let Some(file) = &resolved.env_file {
        let path = match base_dir {
            Some(dir) => dir.join(file),
            None => PathBuf::from(file),
        };
        let mut env = read_env_file(&path)?;
        env.extend(resolved.env);
        resolved.env = env;
    }
    Ok(resolved)
}

/// `NAME=value` lines (blank lines, `#` comments and `export ` allowed; quotes around a
/// value removed), from a small regular file read as a stranger's file: no symlink, no FIFO
/// or device, bounded.
fn read_env_file(path: &Path) -> Result<BTreeMap<String, String>, String> {
    let shown = path.display();
    let text = paddock_guard::read_untrusted(path, MAX_ENV_FILE_BYTES)
        .map_err(|e| format!("envFile {shown}: {e}"))?;
    let mut out = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line);
        let Some((name, value)) = line.split_once('=') else {
            return Err(format!(
                "envFile {shown} line {}: expected NAME=value",
                n + 1
            ));
        };
        let value = value.trim();
        let unquoted = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
            .unwrap_or(value);
        out.insert(name.trim().to_owned(), unquoted.to_owned());
    }
    Ok(out)
}

impl Drop for McpServers {
    fn drop(&mut self) {
        for entry in lock(&self.servers).values() {
            entry.server.kill_now();
        }
    }
}

/// Publishes the exit of a running server. Holds no reference to the server itself, so
/// it never keeps one alive.
fn watch_exit(board: StatusBoard, name: String, lifeline: Arc<Lifeline>, stderr: StderrLog) {
    tokio::spawn(async move {
        lifeline.gone().await;
        stderr.wait_closed(Duration::from_millis(500)).await;
        let reason = lifeline
            .reason()
            .unwrap_or_else(|| "the server went away".to_owned());
        // A stop Paddock asked for is routine; anything else is worth a warning.
        if reason == server::STOPPED_BY_PADDOCK {
            tracing::debug!("MCP server '{name}' exited: {reason}");
        } else {
            tracing::warn!("MCP server '{name}' exited: {reason}");
        }
        board.set(
            &name,
            McpServerState::Exited { reason },
            stderr.tail(STATUS_STDERR_CHARS),
        );
    });
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send<T: Send>(_: &T) {}
    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn hosts_can_share_the_handle_and_spawn_its_futures() {
        assert_send_sync::<McpServers>();
        assert_send_sync::<McpTool>();
        let servers = McpServers::new(McpOptions::default());
        let configs = BTreeMap::new();
        let start = servers.start(&configs);
        assert_send(&start);
        let shutdown = servers.shutdown();
        assert_send(&shutdown);
    }

    #[tokio::test]
    async fn disabled_and_invalid_entries_get_a_status_without_starting() {
        let servers = McpServers::new(McpOptions::default());
        let configs = BTreeMap::from([
            (
                "off".to_owned(),
                McpServerConfig {
                    disabled: true,
                    command: Some("paddock-no-such-command".into()),
                    ..McpServerConfig::default()
                },
            ),
            (
                "both".to_owned(),
                McpServerConfig {
                    command: Some("x".into()),
                    url: Some("http://127.0.0.1:9/mcp".into()),
                    ..McpServerConfig::default()
                },
            ),
        ]);
        servers.start(&configs).await;
        let statuses = servers.statuses();
        assert_eq!(statuses.len(), 2);
        assert_eq!(statuses[1].name, "off");
        assert_eq!(statuses[1].state, McpServerState::Disabled);
        match &statuses[0].state {
            McpServerState::Failed { error } => {
                assert!(error.starts_with("invalid settings: "), "{error}");
                assert!(error.contains("not both"), "{error}");
            }
            other => panic!("expected Failed, got {other:?}"),
        }
        assert!(servers.tools().is_empty());
    }
}
