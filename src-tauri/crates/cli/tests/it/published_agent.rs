//! A published agent from npm behind Paddock's wall: Claude Code's ACP adapter
//! (`@agentclientprotocol/claude-agent-acp`, run by the Node.js 22 that `tests/acp-agents`
//! installs for it) with its API base URL pointed at the fake model server, that host allowed
//! for it alone. Its edit asks Paddock, lands with its diff under the call, is recorded and
//! rewinds; a refusal stops it; the wall stops it reading the home's secrets or writing
//! outside the workspace, however it is allowed.

use std::path::{Path, PathBuf};

use paddock_fake_model::{FakeServer, Reply};
use paddock_protocol::{AgentEvent, ToolStatus};
use serde_json::{Value, json};

use crate::common::{Env, read, session_events};

/// The key the user stored for Anthropic: it must reach the fake server from inside the wall.
const KEY: &str = "sk-ant-walled-test";

/// The adapter and the Node.js that runs it, when installed; a failure when
/// `PADDOCK_REQUIRE_ACP=1`.
fn claude_adapter() -> Option<(PathBuf, PathBuf)> {
    let package = crate::common::npm_fixture(
        "acp-agents",
        "node_modules/@agentclientprotocol/claude-agent-acp/package.json",
        "Claude Code's ACP adapter",
        "PADDOCK_REQUIRE_ACP",
    )?;
    let adapter = package.parent()?.join("dist/index.js");
    let node = package.ancestors().nth(3)?.join(".bin/node");
    assert!(
        node.exists(),
        "Node.js 22 from npm missing: {}",
        node.display()
    );
    Some((node, adapter))
}

/// A project whose user added Claude Code, pointed at `server`, in the mode that asks before
/// every edit.
fn env_with_claude(server: &FakeServer, node: &Path, adapter: &Path) -> Env {
    let hosts = [format!("127.0.0.1:{}", server.addr().port())];
    env_with_claude_at(server, &server.url(), &hosts, node, adapter)
}

/// The same with its API at `api`, allowed `hosts`.
fn env_with_claude_at(
    server: &FakeServer,
    api: &str,
    hosts: &[String],
    node: &Path,
    adapter: &Path,
) -> Env {
    let mut env = Env::new(server, json!({}));
    env.set_env("ANTHROPIC_API_KEY", KEY);
    let agents = json!({"agents": {"claude": {
        "command": node,
        "args": [adapter],
        "env": {
            "ANTHROPIC_BASE_URL": api,
            // One attempt per request: a refused host fails at once.
            "CLAUDE_CODE_MAX_RETRIES": "0",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            // No guess at the user's next prompt after each turn (a request of its own).
            "CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION": "false",
            // CI runs as root, where Claude Code wants to know it is sandboxed; it is.
            "IS_SANDBOX": "1",
        },
        "hosts": hosts,
        "key": {"provider": "anthropic", "env": "ANTHROPIC_API_KEY"},
        "mode": "default",
    }}});
    std::fs::create_dir_all(env.config_dir()).unwrap();
    std::fs::write(env.config_dir().join("agents.json"), agents.to_string()).unwrap();
    // Claude Code asks for a session title beside its first turn, with no tools.
    server.set_side_reply(Some(Reply::text("Notes")));
    env
}

/// The tool results the agent sent back to the model after its calls, once each (every
/// later request repeats them).
fn tool_results(server: &FakeServer) -> Vec<Value> {
    let mut seen = std::collections::BTreeSet::new();
    server
        .model_requests()
        .iter()
        .filter(|r| r.body["tools"].as_array().is_some_and(|t| !t.is_empty()))
        .flat_map(|r| r.body["messages"].as_array().cloned().unwrap_or_default())
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter(|c| c["type"] == "tool_result")
        .filter(|c| seen.insert(c["tool_use_id"].to_string()))
        .collect()
}

fn result_text(result: &Value) -> String {
    match &result["content"] {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_codes_edit_asks_paddock_shows_its_diff_is_recorded_and_rewinds() {
    let Some((node, adapter)) = claude_adapter() else {
        return;
    };
    let server = FakeServer::start().await.unwrap();
    let env = env_with_claude(&server, &node, &adapter);
    let target = env.workspace().join("notes/hello.txt");
    server.push_all([
        Reply::text("Writing it.").with_tool_call(
            Some("toolu_write"),
            "Write",
            json!({"file_path": target, "content": "hello from Claude\n"}),
        ),
        Reply::text("Done.").with_usage(120, 30),
    ]);
    let run = env
        .run(&["exec", "--agent", "claude", "--ask-allows", "write hello"])
        .await;
    run.expect_code(0);
    assert_eq!(read(&target), "hello from Claude\n");
    assert!(run.stdout.contains("Done."), "{}", run.stdout);

    // Every model request came from inside the wall with the user's key.
    let requests = server.model_requests();
    assert!(requests.len() >= 2, "{requests:?}");
    for r in &requests {
        assert_eq!(
            r.headers.get("x-api-key").map(String::as_str),
            Some(KEY),
            "{}",
            r.path
        );
    }

    let (id, events) = session_events(&env, &run.stderr);
    let write = events.iter().find_map(|e| match e {
        AgentEvent::ToolCallFinished {
            name,
            status,
            changes,
            ..
        } if name == "Write" => Some((*status, changes.clone())),
        _ => None,
    });
    let (status, changes) = write.unwrap_or_else(|| panic!("no Write call: {events:?}"));
    assert_eq!(status, ToolStatus::Ok);
    // The diff under the call, as Paddock's own edits show theirs.
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0].path, "notes/hello.txt");
    assert_eq!((changes[0].added, changes[0].removed), (1, 0));
    // Text after the call is the second turn; the tokens are what the agent reported.
    let finished = events.iter().find_map(|e| match e {
        AgentEvent::RunFinished { turns, usage, .. } => Some((*turns, *usage)),
        _ => None,
    });
    let (turns, usage) = finished.expect("the run finished");
    assert_eq!(turns, 2);
    assert!(usage.output_tokens >= 30, "{usage:?}");
    // Paddock's own record of the run.
    let recorded = events.iter().find_map(|e| match e {
        AgentEvent::RunChanges { files, .. } => Some(files.clone()),
        _ => None,
    });
    assert!(
        recorded.is_some_and(|f| f.iter().any(|f| f.path == "notes/hello.txt")),
        "{events:?}"
    );

    env.run(&["rewind", &id, "--to", "1", "--files-only"])
        .await
        .expect_code(0);
    assert!(!target.exists(), "the rewind undid Claude Code's file");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headless_paddock_refuses_claude_codes_edit_and_nothing_is_written() {
    let Some((node, adapter)) = claude_adapter() else {
        return;
    };
    let server = FakeServer::start().await.unwrap();
    let env = env_with_claude(&server, &node, &adapter);
    let target = env.workspace().join("refused.txt");
    server.push_all([
        Reply::text("Writing.").with_tool_call(
            Some("toolu_write"),
            "Write",
            json!({"file_path": target, "content": "should not be\n"}),
        ),
        Reply::text("Understood."),
    ]);
    // In its own default mode Claude Code would write it; the mode set from the agents file
    // sends the question to Paddock, and nobody can approve here.
    let run = env
        .run(&["exec", "--agent", "claude", "write refused"])
        .await;
    assert!(!target.exists(), "{}\n{}", run.stdout, run.stderr);
    let results = tool_results(&server);
    assert!(
        results.iter().any(|r| r["is_error"] == true),
        "the model was told of the refusal: {results:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wall_holds_claude_code_in_even_when_its_calls_are_allowed() {
    let Some((node, adapter)) = claude_adapter() else {
        return;
    };
    let server = FakeServer::start().await.unwrap();
    let env = env_with_claude(&server, &node, &adapter);
    let ssh = env.home().join(".ssh");
    std::fs::create_dir_all(&ssh).unwrap();
    std::fs::write(ssh.join("id_rsa"), "PRIVATE KEY MATERIAL").unwrap();
    let outside = env.home().join("outside.txt");
    server.push_all([
        Reply::text("Looking around.")
            .with_tool_call(
                Some("toolu_read"),
                "Read",
                json!({"file_path": ssh.join("id_rsa")}),
            )
            .with_tool_call(
                Some("toolu_write"),
                "Write",
                json!({"file_path": outside, "content": "escaped\n"}),
            ),
        Reply::text("Nothing there."),
    ]);
    // Every permission request approved: only the wall stands in the way.
    let run = env
        .run(&["exec", "--agent", "claude", "--ask-allows", "look around"])
        .await;
    assert!(!outside.exists(), "Claude Code wrote outside the workspace");
    let results = tool_results(&server);
    assert_eq!(results.len(), 2, "{results:?}\n{}", run.stderr);
    for r in &results {
        let text = result_text(r);
        // Without the wall: the key's text, and a file written in the home.
        assert!(!text.contains("PRIVATE KEY"), "{text}");
        assert_eq!(r["is_error"], true, "{r}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_api_address_its_wall_refuses_stops_claude_code_before_it_starts() {
    let Some((node, adapter)) = claude_adapter() else {
        return;
    };
    let server = FakeServer::start().await.unwrap();
    // The user forgot to allow the fake server for it: inside the wall 127.0.0.1 is its own.
    let env = env_with_claude_at(&server, &server.url(), &[], &node, &adapter);
    let run = env.run(&["exec", "--agent", "claude", "hello"]).await;
    run.expect_code(2);
    let port = server.addr().port();
    assert!(
        run.stderr.contains(&format!(
            "claude's ANTHROPIC_BASE_URL is {}, but its wall has no network",
            server.url()
        )) && run.stderr.contains(&format!(
            "add \"127.0.0.1:{port}\" to its hosts in agents.json"
        )),
        "{}",
        run.stderr
    );
    assert!(server.model_requests().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_nobody_allowed_claude_code_is_refused_and_named_with_its_rule() {
    let Some((node, adapter)) = claude_adapter() else {
        return;
    };
    let server = FakeServer::start().await.unwrap();
    // Its vendor's real API, which no rule names: the proxy would ask, and nobody can answer
    // here. (Nothing leaves the machine: the proxy refuses before any lookup.)
    // Another host allowed: the wall's network is the proxy, which decides every host.
    let env = env_with_claude_at(
        &server,
        "https://api.anthropic.com",
        &["registry.npmjs.org".to_owned()],
        &node,
        &adapter,
    );
    let run = env.run(&["exec", "--agent", "claude", "hello"]).await;
    assert_ne!(run.code, 0, "{}", run.stdout);
    assert!(
        run.stderr
            .contains("claude was refused api.anthropic.com:443")
            && run
                .stderr
                .contains("add \"api.anthropic.com:443\" to its hosts in agents.json"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("its wall refused api.anthropic.com:443"),
        "the failure names it too: {}",
        run.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_users_always_allow_for_claude_codes_write_answers_without_asking() {
    let Some((node, adapter)) = claude_adapter() else {
        return;
    };
    let server = FakeServer::start().await.unwrap();
    let env = env_with_claude(&server, &node, &adapter);
    // "Always allow" on its card saved this, in the user's file.
    let file = env.config_dir().join("agents.json");
    let mut agents: Value = serde_json::from_str(&read(&file)).unwrap();
    agents["agents"]["claude"]["allow"] = json!(["Write"]);
    std::fs::write(&file, agents.to_string()).unwrap();
    let target = env.workspace().join("allowed.txt");
    server.push_all([
        Reply::text("Writing.").with_tool_call(
            Some("toolu_write"),
            "Write",
            json!({"file_path": target, "content": "by the rule\n"}),
        ),
        Reply::text("Done."),
    ]);
    // Headless, nobody to ask: only the rule lets it through.
    let run = env
        .run(&["exec", "--agent", "claude", "write allowed"])
        .await;
    run.expect_code(0);
    assert_eq!(read(&target), "by the rule\n");
    let (_, events) = session_events(&env, &run.stderr);
    let why = events.iter().find_map(|e| match e {
        AgentEvent::ToolCallFinished { name, why, .. } if name == "Write" => Some(why.clone()),
        _ => None,
    });
    assert_eq!(
        why.as_deref(),
        Some("allowed by your rule for claude: Write"),
        "{events:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_loads_its_own_session_on_the_next_prompt() {
    let Some((node, adapter)) = claude_adapter() else {
        return;
    };
    let server = FakeServer::start().await.unwrap();
    let env = env_with_claude(&server, &node, &adapter);
    server.push_all([Reply::text("One."), Reply::text("Two.")]);
    let first = env
        .run(&["exec", "--agent", "claude", "remember the word heron"])
        .await;
    first.expect_code(0);
    let (id, _) = session_events(&env, &first.stderr);
    // A new process, a new wall: Claude Code finds its transcript in its own home. (Its
    // `.claude` there is its own, not a credential folder of the user's to mask.)
    let again = env
        .run(&["resume", "--agent", "claude", &id, "which word?"])
        .await;
    again.expect_code(0);
    assert!(!again.stderr.contains("could not load"), "{}", again.stderr);
    let last = server
        .model_requests()
        .into_iter()
        .rfind(|r| r.body["tools"].as_array().is_some_and(|t| !t.is_empty()))
        .expect("the second prompt's request");
    let sent = last.body["messages"].to_string();
    assert!(
        sent.contains("remember the word heron") && sent.contains("One."),
        "the earlier conversation went with it: {sent}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_and_an_at_file_go_to_claude_code_as_acp_blocks() {
    let Some((node, adapter)) = claude_adapter() else {
        return;
    };
    let server = FakeServer::start().await.unwrap();
    let env = env_with_claude(&server, &node, &adapter);
    std::fs::create_dir_all(env.workspace().join("notes")).unwrap();
    std::fs::write(env.workspace().join("notes/spec.md"), "SPEC-CONTENT-42\n").unwrap();
    let mut png = std::io::Cursor::new(Vec::new());
    image::DynamicImage::new_rgb8(4, 3)
        .write_to(&mut png, image::ImageFormat::Png)
        .unwrap();
    let shot = env.home().join("shot.png");
    std::fs::write(&shot, png.into_inner()).unwrap();
    server.push(Reply::text("Seen."));
    let run = env
        .run(&[
            "exec",
            "--agent",
            "claude",
            "--image",
            &shot.display().to_string(),
            "compare @notes/spec.md with the picture",
        ])
        .await;
    run.expect_code(0);
    let asked = server
        .model_requests()
        .into_iter()
        .rfind(|r| r.body["tools"].as_array().is_some_and(|t| !t.is_empty()))
        .expect("the conversation's request");
    let sent = asked.body["messages"].to_string();
    assert!(
        sent.contains("SPEC-CONTENT-42"),
        "the file's text went along: {sent}"
    );
    let image = asked.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .find(|c| c["type"] == "image")
        .unwrap_or_else(|| panic!("no image block: {sent}"));
    assert_eq!(image["source"]["media_type"], "image/png");
    // Kept with the session as Paddock's own prompts are.
    let (id, _) = session_events(&env, &run.stderr);
    let stored = env.load(&id);
    let first = &stored.messages[0];
    assert!(
        first
            .content
            .iter()
            .any(|b| matches!(b, paddock_protocol::ContentBlock::Image(_))),
        "{first:?}"
    );
}
