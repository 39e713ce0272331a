//! MCP servers from the settings, through `paddock exec` and `paddock doctor`, against the
//! real `@modelcontextprotocol/server-everything` (installed by the test setup).

use std::path::{Path, PathBuf};

use paddock_fake_model::{FakeServer, Reply};
use serde_json::{Value, json};

use crate::common::{Env, chat_bodies, tool_contents};

/// server-everything's entry point; `None` (with a note) when it is not installed, a
/// failure when `PADDOCK_REQUIRE_MCP=1`.
pub(crate) fn everything() -> Option<PathBuf> {
    crate::common::npm_fixture(
        "mcp-fixtures",
        "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        "server-everything",
        "PADDOCK_REQUIRE_MCP",
    )
}

/// The server, its tools granted for the whole server (MCP tools are not granted by default).
fn settings(js: &Path) -> Value {
    json!({
        "mcpServers": {"everything": {"command": "node", "args": [js, "stdio"]}},
        "tools": {"mcp__everything__*": "allow"}
    })
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_calls_an_mcp_tool_from_the_settings() {
    let Some(js) = everything() else { return };
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call(
            "mcp__everything__echo",
            json!({"message": "hello from mcp"}),
        ),
        Reply::text("It echoed."),
    ]);
    let env = Env::new(&server, settings(&js));
    let run = env.run(&["exec", "echo something"]).await;
    run.expect_code(0);
    let line = run
        .stderr
        .lines()
        .find(|l| l.starts_with("tool mcp__everything__echo "))
        .unwrap_or_else(|| panic!("no tool line:\n{}", run.stderr));
    assert!(
        line.contains("hello from mcp") && line.contains("-> ok ("),
        "{line}"
    );
    assert!(
        !run.stderr.contains("WARN"),
        "a normal shutdown is quiet: {}",
        run.stderr
    );
    let bodies = chat_bodies(&server);
    // A per-server grant is enough: no preset or allow list.
    assert!(tool_names(&bodies[0]).contains(&"mcp__everything__echo".to_owned()));
    let results = tool_contents(&bodies[1]);
    assert!(
        results.iter().any(|r| r.contains("hello from mcp")),
        "{results:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_denied_mcp_tool_is_neither_offered_nor_run() {
    let Some(js) = everything() else { return };
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call(
            "mcp__everything__echo",
            json!({"message": "should not run"}),
        ),
        Reply::text("Refused."),
    ]);
    let env = Env::new(&server, settings(&js));
    let run = env
        .run(&["exec", "--deny", "mcp__everything__echo", "echo something"])
        .await;
    run.expect_code(8);
    let bodies = chat_bodies(&server);
    assert!(!tool_names(&bodies[0]).contains(&"mcp__everything__echo".to_owned()));
    let results = tool_contents(&bodies[1]);
    assert!(
        results.iter().all(|r| !r.contains("should not run")),
        "{results:?}"
    );
    assert!(
        results.iter().any(|r| r.contains("not granted")),
        "{results:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_starts_the_mcp_servers() {
    let Some(js) = everything() else { return };
    let server = FakeServer::start().await.unwrap();
    let env = Env::new(&server, settings(&js));
    let run = env.run(&["doctor"]).await;
    let line = run
        .stdout
        .lines()
        .find(|l| l.contains("mcp server 'everything':"))
        .unwrap_or_else(|| panic!("no MCP line:\n{}", run.stdout));
    assert!(line.starts_with("ok"), "{line}");
    assert!(line.contains("running"), "{line}");
}
