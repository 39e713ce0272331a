//! What stdio servers are given (PATH, env) and how they end (shutdown, drop).

use std::time::Duration;

use paddock_core::GrantPolicy;
use paddock_core::protocol::{McpServerConfig, McpServerState};
use paddock_core::scripted::ScriptedTurn;
use paddock_mcp::{McpOptions, McpServers, ServerPath};
use serde_json::json;

use crate::common::{
    everything, one, process_alive, registry_of, results, run_agent, started, stdio_config,
    wait_for_state,
};

async fn wait_gone(pid: u32) {
    let gone = async {
        while process_alive(pid) {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(5), gone)
        .await
        .expect("the server process is still running");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_servers_get_the_chosen_path_and_env() {
    let Some(js) = everything() else { return };
    let path = format!(
        "/paddock/login-shell/bin:{}",
        std::env::var("PATH").unwrap_or_default()
    );
    let mut config = stdio_config(&js);
    config
        .env
        .insert("PADDOCK_MCP_TEST".into(), "from settings".into());
    let servers = started(
        &one("everything", config),
        McpOptions {
            path: ServerPath::Fixed(path),
            hide_env: vec!["HOME".into()],
            ..McpOptions::default()
        },
    )
    .await;
    let run = run_agent(
        registry_of(&servers),
        GrantPolicy::default(),
        vec![
            ScriptedTurn::tools(&[("mcp__everything__get-env", json!({}))]),
            ScriptedTurn::text("done"),
        ],
    )
    .await;
    let (env, is_error) = &results(&run)[0];
    assert!(!is_error, "{env}");
    assert!(env.contains("/paddock/login-shell/bin:"), "{env}");
    assert!(env.contains("from settings"), "{env}");
    assert!(!env.contains("\"HOME\":"), "{env}");
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_stops_the_server_and_says_so() {
    let Some(js) = everything() else { return };
    let servers = started(&one("everything", stdio_config(&js)), McpOptions::default()).await;
    let pid = servers.pid("everything").unwrap();
    assert!(process_alive(pid));
    servers.shutdown().await;
    wait_gone(pid).await;
    let status = wait_for_state(&servers, "everything", Duration::from_secs(5), |s| {
        matches!(s, McpServerState::Exited { .. })
    })
    .await;
    assert_eq!(
        status.state,
        McpServerState::Exited {
            reason: "stopped by Paddock".into()
        }
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_handle_kills_stdio_servers() {
    let Some(js) = everything() else { return };
    // Through a shell, so the server is a grandchild: the whole group must go.
    let script = format!("node '{}' stdio; echo unreachable", js.display());
    let config = McpServerConfig {
        command: Some("sh".into()),
        args: vec!["-c".into(), script],
        ..McpServerConfig::default()
    };
    let servers = McpServers::new(McpOptions::default());
    servers.start(&one("wrapped", config)).await;
    let tools = servers.tools();
    assert!(!tools.is_empty());
    let pid = servers.pid("wrapped").unwrap();
    let node_pids = children_of(pid);
    assert!(!node_pids.is_empty(), "no node process under the shell");
    drop(servers);
    wait_gone(pid).await;
    for child in node_pids {
        wait_gone(child).await;
    }
    // Tools still held by a registry now answer with an error instead of hanging.
    let mut registry = paddock_core::ToolRegistry::new();
    for t in tools {
        registry.register_runtime(t).unwrap();
    }
    let run = run_agent(
        std::sync::Arc::new(registry),
        GrantPolicy::default(),
        vec![
            ScriptedTurn::tools(&[("mcp__wrapped__echo", json!({"message": "hello?"}))]),
            ScriptedTurn::text("done"),
        ],
    )
    .await;
    let (text, is_error) = &results(&run)[0];
    assert!(*is_error && text.contains("stopped by Paddock"), "{text}");
}

/// Direct children of `pid` (Linux /proc; empty elsewhere).
fn children_of(pid: u32) -> Vec<u32> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}
