//! Servers that do not start, names that collide, noisy servers and calls that take too long.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use paddock_core::protocol::{McpServerConfig, McpServerState, ToolSpec};
use paddock_core::scripted::ScriptedTurn;
use paddock_core::{GrantPolicy, Tool, ToolContext, ToolError, ToolOutput, ToolRegistry};
use paddock_mcp::{McpOptions, McpServers};
use serde_json::json;

use crate::common::{
    command_config, everything, one, process_alive, registry_of, results, run_agent, running_tools,
    started, stdio_config,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_server_fails_clearly_while_the_others_start() {
    let Some(js) = everything() else { return };
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("slow.pid");
    let slow_script = format!("echo $$ > '{}'; exec sleep 60", pid_file.display());
    let configs = BTreeMap::from([
        ("everything".to_owned(), stdio_config(&js)),
        (
            "missing".to_owned(),
            command_config("paddock-no-such-command", &[]),
        ),
        (
            "crashing".to_owned(),
            command_config("sh", &["-c", "echo 'boom: no config file' >&2; exit 3"]),
        ),
        (
            "slow".to_owned(),
            command_config("sh", &["-c", &slow_script]),
        ),
        ("empty".to_owned(), McpServerConfig::default()),
        (
            "unreachable".to_owned(),
            McpServerConfig {
                url: Some(format!("http://127.0.0.1:{}/mcp", closed_port())),
                ..McpServerConfig::default()
            },
        ),
        (
            "off".to_owned(),
            McpServerConfig {
                disabled: true,
                ..command_config("paddock-no-such-command", &[])
            },
        ),
    ]);
    let options = McpOptions {
        start_timeout: Duration::from_secs(6),
        ..McpOptions::default()
    };
    // When each server's failure was reported, from the status callback.
    let seen: Arc<Mutex<BTreeMap<String, Duration>>> = Arc::default();
    let t0 = Instant::now();
    let servers = {
        let seen = seen.clone();
        McpServers::with_callback(options, move |status| {
            if matches!(status.state, McpServerState::Failed { .. }) {
                seen.lock()
                    .unwrap()
                    .insert(status.name.clone(), t0.elapsed());
            }
        })
    };
    servers.start(&configs).await;
    let total = t0.elapsed();

    assert!(running_tools(&servers.status("everything").unwrap()).len() > 5);
    let error_of = |name: &str| match servers.status(name).unwrap().state {
        McpServerState::Failed { error } => error,
        other => panic!("{name}: expected Failed, got {other:?}"),
    };
    let missing = error_of("missing");
    assert!(
        missing.contains("command `paddock-no-such-command` was not found"),
        "{missing}"
    );
    let crashing = error_of("crashing");
    assert!(
        crashing.contains("exited with code 3 during startup"),
        "{crashing}"
    );
    let tail = servers.status("crashing").unwrap().stderr_tail.unwrap();
    assert!(tail.contains("boom: no config file"), "{tail}");
    assert!(
        servers
            .stderr("crashing")
            .unwrap()
            .contains("boom: no config file")
    );
    assert!(error_of("slow").contains("did not finish starting within 6 s"));
    assert!(error_of("empty").contains("invalid settings"));
    let unreachable = error_of("unreachable");
    assert!(
        unreachable.starts_with("could not connect to http://127.0.0.1:"),
        "{unreachable}"
    );
    assert_eq!(
        servers.status("off").unwrap().state,
        McpServerState::Disabled
    );

    // Started side by side: the quick failures were reported long before the slow one gave
    // up, and the whole start took about one timeout, not the sum.
    let seen = seen.lock().unwrap().clone();
    assert!(seen["missing"] < Duration::from_secs(3), "{seen:?}");
    assert!(seen["crashing"] < Duration::from_secs(4), "{seen:?}");
    assert!(total < Duration::from_secs(10), "{total:?}");

    // The timed-out server was killed, not left behind.
    let pid: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let gone = async {
        while process_alive(pid) {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(3), gone)
        .await
        .expect("the slow server is still running");

    // The healthy one works.
    let run = run_agent(
        registry_of(&servers),
        GrantPolicy::default(),
        vec![
            ScriptedTurn::tools(&[("mcp__everything__echo", json!({"message": "ok"}))]),
            ScriptedTurn::text("done"),
        ],
    )
    .await;
    assert_eq!(results(&run), vec![("Echo: ok".to_owned(), false)]);
    servers.shutdown().await;
}

/// A loopback port nobody listens on.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// Accepts anything; stands for a tool that was registered first.
struct Placeholder(ToolSpec);

#[async_trait]
impl Tool for Placeholder {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    async fn call(&self, _: &serde_json::Value, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::ok("placeholder ran"))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn colliding_names_are_refused_never_overwritten() {
    let Some(js) = everything() else { return };
    // "a.b" and "a_b" both sanitize to a_b; "a.b" sorts first and keeps the names.
    let configs = BTreeMap::from([
        ("a.b".to_owned(), stdio_config(&js)),
        ("a_b".to_owned(), stdio_config(&js)),
    ]);
    let servers = started(&configs, McpOptions::default()).await;
    let first = running_tools(&servers.status("a.b").unwrap());
    assert!(first.contains(&"mcp__a_b__echo".to_owned()), "{first:?}");
    let second = servers.status("a_b").unwrap();
    assert!(running_tools(&second).is_empty());
    assert!(
        second.warnings.iter().any(|w| w
            == "tool 'echo' was left out: its name mcp__a_b__echo is already used by tool \
                'echo' of server 'a.b'"),
        "{:?}",
        second.warnings
    );
    let owners: Vec<_> = servers
        .tools()
        .iter()
        .filter(|t| t.spec().name == "mcp__a_b__echo")
        .map(|t| t.server_name().to_owned())
        .collect();
    assert_eq!(owners, ["a.b"]);

    // A name the registry already has is refused too, and the first tool stays.
    let mut registry = ToolRegistry::new();
    registry
        .register(Arc::new(Placeholder(ToolSpec {
            name: "mcp__a_b__echo".into(),
            description: "placeholder".into(),
            input_schema: json!({"type": "object"}),
        })))
        .unwrap();
    let warnings = servers.register(&mut registry);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("mcp__a_b__echo"), "{warnings:?}");
    assert_eq!(
        registry.spec("mcp__a_b__echo").unwrap().description,
        "placeholder"
    );
    assert!(registry.is_runtime("mcp__a_b__get-sum"));
    let listed = running_tools(&servers.status("a.b").unwrap());
    assert!(!listed.contains(&"mcp__a_b__echo".to_owned()), "{listed:?}");
    assert!(listed.contains(&"mcp__a_b__get-sum".to_owned()));
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdout_noise_is_ignored_and_stderr_is_kept() {
    let Some(js) = everything() else { return };
    let script = format!(
        "echo 'hello from a chatty wrapper'; echo '{{\"not\": \"json-rpc\"}}'; exec node '{}' stdio",
        js.display()
    );
    let servers = started(
        &one("noisy", command_config("sh", &["-c", &script])),
        McpOptions::default(),
    )
    .await;
    running_tools(&servers.status("noisy").unwrap());
    let run = run_agent(
        registry_of(&servers),
        GrantPolicy::default(),
        vec![
            ScriptedTurn::tools(&[("mcp__noisy__echo", json!({"message": "through the noise"}))]),
            ScriptedTurn::text("done"),
        ],
    )
    .await;
    assert_eq!(
        results(&run),
        vec![("Echo: through the noise".to_owned(), false)]
    );
    let stderr = servers.stderr("noisy").unwrap();
    assert!(
        stderr.contains("Starting default (STDIO) server"),
        "{stderr}"
    );
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_call_times_out_and_the_server_keeps_working() {
    let Some(js) = everything() else { return };
    let config = McpServerConfig {
        timeout_secs: Some(1),
        ..stdio_config(&js)
    };
    let servers = started(&one("everything", config), McpOptions::default()).await;
    let started_at = Instant::now();
    let run = run_agent(
        registry_of(&servers),
        GrantPolicy::default(),
        vec![
            ScriptedTurn::tools(&[(
                "mcp__everything__trigger-long-running-operation",
                json!({"duration": 10, "steps": 2}),
            )]),
            ScriptedTurn::tools(&[("mcp__everything__echo", json!({"message": "after"}))]),
            ScriptedTurn::text("done"),
        ],
    )
    .await;
    let r = results(&run);
    assert!(r[0].1, "{:?}", r[0]);
    assert_eq!(
        r[0].0,
        "'trigger-long-running-operation' on MCP server 'everything' did not answer within 1 s; \
         the call was cancelled."
    );
    assert_eq!(r[1], ("Echo: after".to_owned(), false));
    assert!(started_at.elapsed() < Duration::from_secs(8));
    assert!(servers.status("everything").unwrap().state.is_running());
    servers.shutdown().await;
}
