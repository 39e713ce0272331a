//! The real `@modelcontextprotocol/server-everything`, over stdio or streamable HTTP, and an
//! agent that calls it through the kernel loop.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use paddock_core::protocol::{McpServerConfig, McpServerState, McpServerStatus, Message};
use paddock_core::scripted::{ScriptedModel, ScriptedTurn};
use paddock_core::{
    Agent, AgentConfig, AgentResult, EventSink, GrantPolicy, NullSink, ToolRegistry,
};
use paddock_mcp::{McpOptions, McpServers};
use tokio::process::{Child, Command};

const PACKAGE: &str = "node_modules/@modelcontextprotocol/server-everything/dist/index.js";

pub fn fixtures_dir() -> PathBuf {
    // src-tauri/crates/mcp -> the repository root.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(3);
    root.unwrap().join("tests/mcp-fixtures")
}

/// The installed server's entry point. Missing: a failure when `PADDOCK_REQUIRE_MCP=1`
/// (CI), otherwise `None` and a note saying how to install it.
pub fn everything() -> Option<PathBuf> {
    let js = fixtures_dir().join(PACKAGE);
    let node = std::process::Command::new("node")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if js.is_file() && node {
        return Some(js);
    }
    let why = if node {
        format!("{} is not installed", js.display())
    } else {
        "`node` is not on PATH".to_owned()
    };
    let fix = format!(
        "install it with: npm ci --prefix {}",
        fixtures_dir().display()
    );
    if std::env::var("PADDOCK_REQUIRE_MCP").as_deref() == Ok("1") {
        panic!("MCP fixtures required (PADDOCK_REQUIRE_MCP=1) but {why}; {fix}");
    }
    eprintln!("SKIPPED: MCP test needs server-everything, but {why}; {fix}");
    None
}

/// Which transport a test runs over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    Stdio,
    Http,
}

/// A server-everything reachable over `via`. Holds the HTTP server process (killed on drop).
pub struct Everything {
    pub config: McpServerConfig,
    pub http: Option<Child>,
}

impl Everything {
    pub async fn start(js: &Path, via: Via) -> Self {
        match via {
            Via::Stdio => Self {
                config: stdio_config(js),
                http: None,
            },
            Via::Http => {
                let (child, port) = http_server(js).await;
                Self {
                    config: McpServerConfig {
                        url: Some(format!("http://127.0.0.1:{port}/mcp")),
                        ..McpServerConfig::default()
                    },
                    http: Some(child),
                }
            }
        }
    }

    /// The process to kill to make the server go away.
    pub fn pid(&self, servers: &McpServers, name: &str) -> u32 {
        match &self.http {
            Some(child) => child.id().unwrap(),
            None => servers.pid(name).unwrap(),
        }
    }
}

pub fn stdio_config(js: &Path) -> McpServerConfig {
    McpServerConfig {
        command: Some("node".into()),
        args: vec![js.display().to_string(), "stdio".into()],
        ..McpServerConfig::default()
    }
}

pub fn command_config(command: &str, args: &[&str]) -> McpServerConfig {
    McpServerConfig {
        command: Some(command.into()),
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        ..McpServerConfig::default()
    }
}

/// server-everything in streamable HTTP mode on a free loopback port, once it listens.
async fn http_server(js: &Path) -> (Child, u16) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new("node")
        .arg(js)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return (child, port);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("server-everything did not listen on port {port} within 10 s");
}

pub fn one(name: &str, config: McpServerConfig) -> BTreeMap<String, McpServerConfig> {
    BTreeMap::from([(name.to_owned(), config)])
}

/// Starts `configs` and checks that `name` is running.
pub async fn started(
    configs: &BTreeMap<String, McpServerConfig>,
    options: McpOptions,
) -> McpServers {
    let servers = McpServers::new(options);
    servers.start(configs).await;
    servers
}

pub fn running_tools(status: &McpServerStatus) -> Vec<String> {
    match &status.state {
        McpServerState::Running { tools } => tools.clone(),
        other => panic!("{} is not running: {other:?}", status.name),
    }
}

pub fn registry_of(servers: &McpServers) -> Arc<ToolRegistry> {
    let mut registry = ToolRegistry::new();
    let warnings = servers.register(&mut registry);
    assert!(warnings.is_empty(), "{warnings:?}");
    Arc::new(registry)
}

pub struct Run {
    pub result: AgentResult,
    pub model: ScriptedModel,
    /// The messages the prompt added.
    pub messages: Vec<Message>,
}

/// One prompt through the kernel loop with a scripted model.
pub async fn run_agent(
    registry: Arc<ToolRegistry>,
    grants: GrantPolicy,
    turns: Vec<ScriptedTurn>,
) -> Run {
    run_agent_observed(registry, grants, turns, Arc::new(NullSink)).await
}

/// [`run_agent`], with the run's events going to `events`.
pub async fn run_agent_observed(
    registry: Arc<ToolRegistry>,
    grants: GrantPolicy,
    turns: Vec<ScriptedTurn>,
    events: Arc<dyn EventSink>,
) -> Run {
    let model = ScriptedModel::recording(turns);
    let mut config = AgentConfig::new("main", "scripted");
    config.grants = grants;
    // These tests are about the MCP client: its tools run as if the user granted the server
    // (the product asks, or denies headless, until then).
    config.grants.runtime_default = paddock_protocol::Grant::Allow;
    let mut agent = Agent::new(config, Arc::new(model.clone()), registry).with_events(events);
    let result = agent.run("go").await;
    let messages = agent.new_messages(&result).to_vec();
    Run {
        result,
        model,
        messages,
    }
}

/// `(content, is_error)` of every tool result in the run, in order.
pub fn results(run: &Run) -> Vec<(String, bool)> {
    run.messages
        .iter()
        .flat_map(|m| m.tool_results())
        .map(|r| (r.content.to_string(), r.is_error))
        .collect()
}

/// Waits until `name`'s status matches, or fails after `limit`.
pub async fn wait_for_state(
    servers: &McpServers,
    name: &str,
    limit: Duration,
    pred: impl Fn(&McpServerState) -> bool,
) -> McpServerStatus {
    let mut rx = servers.subscribe();
    let found = tokio::time::timeout(
        limit,
        rx.wait_for(|all| all.get(name).is_some_and(|s| pred(&s.state))),
    )
    .await;
    match found {
        Ok(Ok(all)) => all[name].clone(),
        _ => panic!(
            "{name} never reached the expected state; last: {:?}",
            servers.status(name)
        ),
    }
}

pub fn kill9(pid: u32) {
    let status = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill -9 {pid} failed");
}

/// True while `pid` runs (a zombie waiting to be reaped counts as gone).
pub fn process_alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        return match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            // The state follows the command name in parentheses.
            Ok(stat) => stat
                .rsplit_once(") ")
                .is_some_and(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X')),
            Err(_) => false,
        };
    }
    std::process::Command::new("kill")
        .args(["-0", &pid.to_string()])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
