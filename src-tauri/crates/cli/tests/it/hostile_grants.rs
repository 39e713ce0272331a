//! A hostile project folder, third part: grants have ceilings. A run's `--preset` bounds
//! every tool from anywhere, a teammate gets no more than its caller, and MCP tools run only
//! when granted. Each case says how it would fail without the bound.

use paddock_fake_model::{FakeServer, Reply};
use serde_json::{Value, json};

use crate::common::{Env, chat_bodies, tool_contents};

/// The names of the tools the model was told about in request `n`.
fn offered(server: &FakeServer, n: usize) -> Vec<String> {
    chat_bodies(server)[n]["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
        .collect()
}

fn results(server: &FakeServer, n: usize) -> Vec<String> {
    tool_contents(&chat_bodies(server)[n])
}

/// Without the ceiling, the settings' own `"tools": {"file_write": "allow"}` survives
/// `--preset readonly`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_readonly_run_ignores_the_settings_write_grants() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call("file_write", json!({"path": "x.txt", "content": "x"})),
        Reply::text("done"),
    ]);
    let env = Env::new(
        &server,
        json!({"tools": {"file_write": "allow", "bash": "allow"}}),
    );
    let run = env.run(&["exec", "--preset", "readonly", "go"]).await;
    run.expect_code(8);
    let told = offered(&server, 0);
    assert!(told.contains(&"file_read".to_owned()), "{told:?}");
    assert!(
        !told.iter().any(|t| t == "file_write" || t == "bash"),
        "{told:?}"
    );
    assert!(!env.workspace().join("x.txt").exists());
}

/// The user's own flag passes the ceiling: they typed it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flag_grant_passes_the_runs_ceiling() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call("file_write", json!({"path": "x.txt", "content": "x"})),
        Reply::text("done"),
    ]);
    let env = Env::new(&server, json!({}));
    let args = [
        "exec",
        "--preset",
        "readonly",
        "--allow",
        "file_write",
        "go",
    ];
    env.run(&args).await.expect_code(0);
    assert!(env.workspace().join("x.txt").exists());
}

/// A teammate with its own `full` preset, started by a read-only run: without the
/// intersection it writes (and runs bash) for its caller.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_teammate_gets_no_more_than_a_readonly_caller() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call(
            "delegate_to_agent",
            json!({"agent": "helper", "task": "write x.txt"}),
        ),
        Reply::tool_call("file_write", json!({"path": "x.txt", "content": "x"})),
        Reply::text("could not"),
        Reply::text("done"),
    ]);
    let env = Env::new(
        &server,
        json!({
            "tools": {"delegate_to_agent": "allow"},
            "teammates": [{"name": "helper", "preset": "full"}]
        }),
    );
    let run = env.run(&["exec", "--preset", "readonly", "go"]).await;
    // The teammate's refused call counts: the run ends "denied".
    run.expect_code(8);
    assert!(!env.workspace().join("x.txt").exists());
    let teammate_told = offered(&server, 1);
    assert!(
        !teammate_told.iter().any(|t| t == "file_write"),
        "{teammate_told:?}"
    );
    assert!(
        run.stderr
            .contains("[helper] tool file_write x.txt -> denied"),
        "{}",
        run.stderr
    );
}

/// `--deny bash` reaches the teammates: without it, a teammate with bash runs it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deny_reaches_teammates() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call(
            "delegate_to_agent",
            json!({"agent": "helper", "task": "run it"}),
        ),
        Reply::tool_call("bash", json!({"command": "touch ran"})),
        Reply::text("could not"),
        Reply::text("done"),
    ]);
    let env = Env::new(
        &server,
        json!({
            "preset": "full",
            "tools": {"delegate_to_agent": "allow"},
            "allowUnconfinedBash": true,
            "teammates": [{"name": "helper", "preset": "full"}]
        }),
    );
    let run = env.run(&["exec", "--deny", "bash", "go"]).await;
    run.expect_code(8);
    assert!(
        !env.workspace().join("ran").exists(),
        "the teammate ran bash"
    );
    let said = results(&server, 2);
    assert!(said.iter().any(|r| r.contains("not granted")), "{said:?}");
}

/// An Ask grant stays Ask for a teammate whose own grant is Allow.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_callers_ask_stays_ask_for_its_teammate() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call(
            "delegate_to_agent",
            json!({"agent": "helper", "task": "write"}),
        ),
        Reply::tool_call("file_write", json!({"path": "x.txt", "content": "x"})),
        Reply::text("could not"),
        Reply::text("done"),
    ]);
    let env = Env::new(
        &server,
        json!({
            "tools": {"delegate_to_agent": "allow", "file_write": "ask"},
            "teammates": [{"name": "helper", "preset": "readwrite"}]
        }),
    );
    // Headless: an Ask is a denial, and the teammate's call waits for an approval nobody gives.
    let run = env.run(&["exec", "go"]).await;
    run.expect_code(8);
    assert!(!env.workspace().join("x.txt").exists());
    let said = results(&server, 2);
    assert!(
        said.iter().any(|r| r.contains("needs the user's approval")),
        "{said:?}"
    );
}

/// MCP settings for the pinned test server, plus `tools`.
fn mcp_settings(js: &std::path::Path, tools: Value) -> Value {
    json!({
        "mcpServers": {"everything": {"command": "node", "args": [js, "stdio"]}},
        "tools": tools
    })
}

/// MCP tools used to be allowed by default, skipping the preset: "readonly" was not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_tools_run_headless_only_when_granted() {
    let Some(js) = crate::mcp::everything() else {
        return;
    };
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call("mcp__everything__echo", json!({"message": "ran"})),
        Reply::text("done"),
    ]);
    let env = Env::new(&server, mcp_settings(&js, json!({})));
    let run = env.run(&["exec", "go"]).await;
    run.expect_code(8);
    assert!(!offered(&server, 0).iter().any(|t| t.starts_with("mcp__")));
    let said = results(&server, 1);
    assert!(said.iter().all(|r| !r.contains("Echo: ran")), "{said:?}");
}

/// One grant names a whole server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_grant_covers_its_tools_and_a_deny_still_wins() {
    let Some(js) = crate::mcp::everything() else {
        return;
    };
    let server = FakeServer::start().await.unwrap();
    server.push_all([Reply::text("done")]);
    let env = Env::new(
        &server,
        mcp_settings(
            &js,
            json!({"mcp__everything__*": "allow", "mcp__everything__add": "deny"}),
        ),
    );
    env.run(&["exec", "go"]).await.expect_code(0);
    let told = offered(&server, 0);
    assert!(
        told.contains(&"mcp__everything__echo".to_owned()),
        "{told:?}"
    );
    assert!(
        !told.contains(&"mcp__everything__add".to_owned()),
        "{told:?}"
    );
}

/// A mutating MCP tool granted in the settings is above a read-only run's ceiling; one the
/// server marks read-only (`readOnlyHint`) is not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_readonly_run_bounds_granted_mcp_tools() {
    let Some(js) = crate::mcp::everything() else {
        return;
    };
    let server = FakeServer::start().await.unwrap();
    server.push_all([Reply::text("done"), Reply::text("done")]);
    let env = Env::new(
        &server,
        mcp_settings(&js, json!({"mcp__everything__*": "allow"})),
    );
    env.run(&["exec", "go"]).await.expect_code(0);
    env.run(&["exec", "--preset", "readonly", "go"])
        .await
        .expect_code(0);
    let mcp = |n| -> Vec<String> {
        offered(&server, n)
            .into_iter()
            .filter(|t| t.starts_with("mcp__"))
            .collect()
    };
    let (all, bounded) = (mcp(0), mcp(1));
    assert!(
        bounded.len() < all.len(),
        "nothing was bounded: {bounded:?}"
    );
    assert!(bounded.iter().all(|t| all.contains(t)));
    // server-everything marks echo read-only: it stays.
    assert!(
        bounded.contains(&"mcp__everything__echo".to_owned()),
        "{bounded:?}"
    );
}
