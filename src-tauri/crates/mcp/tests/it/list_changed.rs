//! A server whose tools change while it runs (`notifications/tools/list_changed`): the next
//! run and the status see the new list. The server is tests/mcp-fixtures/changing-tools.mjs,
//! built on the official SDK.

use std::time::Duration;

use paddock_core::scripted::ScriptedTurn;
use paddock_core::{GrantPolicy, Tool};
use paddock_mcp::{McpOptions, McpServers};
use serde_json::json;

use crate::common::{
    command_config, everything, fixtures_dir, one, registry_of, results, run_agent, running_tools,
    started,
};

fn names(servers: &McpServers) -> Vec<String> {
    servers
        .tools()
        .iter()
        .map(|t| t.spec().name.clone())
        .collect()
}

/// Calls one tool through the kernel loop; returns its result text.
async fn call(servers: &McpServers, tool: &str) -> String {
    let run = run_agent(
        registry_of(servers),
        GrantPolicy::default(),
        vec![
            ScriptedTurn::tools(&[(tool, json!({}))]),
            ScriptedTurn::text("done"),
        ],
    )
    .await;
    let (text, is_error) = results(&run).remove(0);
    assert!(!is_error, "{tool}: {text}");
    text
}

/// Refreshes until a changed list was read again (the notification comes shortly after the
/// call's result).
async fn refreshed(servers: &McpServers) {
    for _ in 0..100 {
        if servers.refresh_tools().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no tools/list_changed within 5 s");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_tool_list_reaches_the_next_run_and_the_status() {
    // server-everything's presence stands for `npm ci` having installed the SDK too.
    if everything().is_none() {
        return;
    }
    let js = fixtures_dir().join("changing-tools.mjs");
    let servers = started(
        &one("chg", command_config("node", &[js.to_str().unwrap()])),
        McpOptions::default(),
    )
    .await;
    assert_eq!(
        names(&servers),
        ["mcp__chg__add_tool", "mcp__chg__remove_tool"]
    );
    assert!(!servers.refresh_tools().await, "nothing changed yet");

    assert_eq!(call(&servers, "mcp__chg__add_tool").await, "added is there");
    refreshed(&servers).await;
    assert_eq!(
        names(&servers),
        [
            "mcp__chg__add_tool",
            "mcp__chg__added",
            "mcp__chg__remove_tool"
        ]
    );
    let status = servers.status("chg").unwrap();
    assert!(
        running_tools(&status).contains(&"mcp__chg__added".to_owned()),
        "{status:?}"
    );
    assert_eq!(call(&servers, "mcp__chg__added").await, "added ran");

    assert_eq!(
        call(&servers, "mcp__chg__remove_tool").await,
        "added is gone"
    );
    refreshed(&servers).await;
    assert_eq!(
        names(&servers),
        ["mcp__chg__add_tool", "mcp__chg__remove_tool"]
    );
    assert!(
        !running_tools(&servers.status("chg").unwrap()).contains(&"mcp__chg__added".to_owned())
    );
    servers.shutdown().await;
}
