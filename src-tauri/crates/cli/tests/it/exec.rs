//! `paddock exec`: real runs against the fake model server, in text and `--json` mode.

use paddock_fake_model::{FakeServer, Reply, Script};
use paddock_protocol::{AgentEvent, ExitReason, Role};
use serde_json::json;

use crate::common::{Env, assert_paired, chat_bodies, read, tool_contents};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_writes_and_reads_workspace_files() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call(
            "file_write",
            json!({"path": "notes/todo.txt", "content": "buy milk\n"}),
        ),
        Reply::tool_call("file_read", json!({"path": "notes/todo.txt"})),
        Reply::text("The list says: buy milk."),
    ]);
    let env = Env::new(&server, json!({}));

    let run = env
        .run(&[
            "exec",
            "--preset",
            "readwrite",
            "Write the list, then read it back.",
        ])
        .await;
    run.expect_code(0);

    assert_eq!(
        read(&env.workspace().join("notes/todo.txt")),
        "buy milk\n",
        "file_write wrote inside <project>/.agent-workspace"
    );
    assert_eq!(run.stdout.trim_end(), "The list says: buy milk.");
    assert!(
        run.stderr
            .contains("tool file_write notes/todo.txt -> ok ("),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("tool file_read notes/todo.txt -> ok ("),
        "{}",
        run.stderr
    );
    // What file_read returned reached the model.
    let bodies = chat_bodies(&server);
    assert_eq!(bodies.len(), 3);
    let results = tool_contents(&bodies[2]);
    assert!(
        results.iter().any(|r| r.contains("buy milk")),
        "{results:?}"
    );

    let session = env.load(&run.session_id());
    assert_paired(&session.messages);
    assert_eq!(
        session.messages.len(),
        6,
        "prompt, 2 x (call, result), answer"
    );
    assert_eq!(session.messages[5].role, Role::Assistant);
    assert_eq!(session.header.model, "fake-model");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_output_parses_back_into_agent_events() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::text("Looking.").with_tool_call(Some("call_g"), "glob", json!({"pattern": "*"})),
        Reply::text("Nothing here yet.").with_usage(30, 5),
    ]);
    let env = Env::new(&server, json!({"preset": "readonly"}));
    std::fs::create_dir_all(env.workspace()).unwrap();

    let run = env
        .run(&["exec", "--json", "What is in the workspace?"])
        .await;
    run.expect_code(0);
    let out = run.json();

    assert_eq!(out.session["resumed"], json!(false));
    let id = out.session["id"].as_str().unwrap();
    assert_eq!(id, run.session_id());
    assert_eq!(out.exit["code"], json!(0));
    assert_eq!(out.exit["reason"], json!("end_turn"));
    assert_eq!(out.exit["session"], json!(id));

    let text: String = out
        .events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(text, "Looking.Nothing here yet.");
    assert!(matches!(out.events[0], AgentEvent::RunStarted { .. }));
    assert!(
        out.events
            .iter()
            .any(|e| matches!(e, AgentEvent::ToolCallStarted { call, .. } if call.id == "call_g"))
    );
    assert!(out.events.iter().any(|e| matches!(
        e,
        AgentEvent::ToolCallFinished { id, is_error: false, .. } if id == "call_g"
    )));
    assert!(matches!(
        out.events.last(),
        Some(AgentEvent::RunFinished {
            exit: ExitReason::EndTurn,
            turns: 2,
            ..
        })
    ));
    // The events kept in the session are the ones printed (deltas aside).
    let stored = env.load(id);
    assert!(stored.events.contains(out.events.last().unwrap()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_prompt_can_come_from_stdin() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text("ok"));
    let env = Env::new(&server, json!({}));
    env.run_with_stdin(&["exec", "-"], "a prompt\nover two lines\n")
        .await
        .expect_code(0);
    let body = &chat_bodies(&server)[0];
    let last = body["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(last["content"], json!("a prompt\nover two lines\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flags_override_settings() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text("ok"));
    let env = Env::new(
        &server,
        json!({"model": "from-settings", "preset": "readonly", "maxTurns": 5}),
    );
    env.run(&["exec", "--model", "from-flag", "--deny", "grep", "hi"])
        .await
        .expect_code(0);
    let body = &chat_bodies(&server)[0];
    assert_eq!(body["model"], json!("from-flag"));
    let tools: Vec<&str> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(tools.contains(&"file_read"), "{tools:?}");
    assert!(tools.contains(&"glob"), "{tools:?}");
    assert!(!tools.contains(&"grep"), "denied by flag: {tools:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_key_comes_from_the_environment_without_a_keychain() {
    let server = FakeServer::start().await.unwrap();
    server.load(Script {
        api_key: Some("sk-from-env".into()),
        ..Script::default()
    });
    server.push(Reply::text("authorised"));
    let mut env = Env::new(&server, json!({}));
    // No keychain answers here: the key in the environment is enough.
    env.set_env("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus");
    let without = env.run(&["exec", "hi"]).await;
    without.expect_code(4);
    assert!(
        without.stderr.contains("paddock: model error:"),
        "{}",
        without.stderr
    );

    env.set_env("PADDOCK_OPENAI_COMPAT_API_KEY", "sk-from-env");
    let with = env.run(&["exec", "hi"]).await;
    with.expect_code(0);
    assert_eq!(with.stdout.trim_end(), "authorised");
    assert!(
        !with.stderr.contains("sk-from-env"),
        "keys are never printed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_server_that_does_not_start_is_a_warning() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text("fine without it"));
    let env = Env::new(
        &server,
        json!({"mcpServers": {"broken": {"command": "/nonexistent/paddock-test-mcp"}}}),
    );
    let run = env.run(&["exec", "hi"]).await;
    run.expect_code(0);
    assert!(
        run.stderr
            .contains("paddock: warning: MCP server 'broken' did not start"),
        "{}",
        run.stderr
    );
    // It failed at once: nothing was waited for, so nothing says so.
    assert!(
        !run.stderr.contains("starting MCP servers"),
        "{}",
        run.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_mcp_start_is_said_instead_of_sitting_silent() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text("went on without it"));
    // Speaks no MCP and exits after 2 s: the run waits that long, then goes on.
    let env = Env::new(
        &server,
        json!({"mcpServers": {"slow": {"command": "sh", "args": ["-c", "sleep 2"]}}}),
    );
    let run = env.run(&["exec", "hi"]).await;
    run.expect_code(0);
    let starting = run
        .stderr
        .find("paddock: starting MCP servers (slow); the run waits for them, up to 30 s")
        .unwrap_or_else(|| panic!("{}", run.stderr));
    let failed = run
        .stderr
        .find("MCP server 'slow' did not start")
        .unwrap_or_else(|| panic!("{}", run.stderr));
    assert!(starting < failed, "{}", run.stderr);
}
