//! Argument rules headless: a rule lets a call of an Ask tool run without a person, a
//! chained part it does not cover still asks (and is refused headless), a deny rule binds
//! teammates, every decision says why, and `paddock rules explain` gives the same answers.

use paddock_fake_model::{FakeServer, Reply};
use paddock_protocol::{AgentEvent, ToolStatus};
use serde_json::{Value, json};

use crate::common::{Env, chat_bodies, tool_contents};

fn finished(events: &[AgentEvent]) -> Vec<(ToolStatus, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolCallFinished { status, why, .. } => Some((*status, why.clone())),
            _ => None,
        })
        .collect()
}

/// Without the rules, `bash: ask` in a headless run refuses both calls; with a prefix
/// matcher, `echo hi && touch pwned` would run too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rule_runs_its_calls_and_nothing_chained_to_them() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call("bash", json!({"command": "echo hi"})),
        Reply::tool_call("bash", json!({"command": "echo hi && touch pwned"})),
        Reply::text("done"),
    ]);
    let env = Env::new(
        &server,
        json!({
            "tools": {"bash": "ask"},
            "rules": {"bash": [{"allow": "echo *"}]},
            "allowUnconfinedBash": true
        }),
    );
    let run = env.run(&["exec", "--json", "go"]).await;
    run.expect_code(8);
    let bodies = chat_bodies(&server);
    assert!(
        tool_contents(&bodies[1])[0].starts_with("hi\n"),
        "the allowed call ran"
    );
    assert!(!env.workspace().join("pwned").exists());
    let calls = finished(&run.json().events);
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(calls[0].0, ToolStatus::Ok);
    assert!(calls[0].1.contains("rules.bash[0]"), "{:?}", calls[0]);
    assert!(
        matches!(calls[1].0, ToolStatus::Denied { .. }),
        "{:?}",
        calls[1]
    );
    assert!(calls[1].1.contains("touch pwned"), "{:?}", calls[1]);
}

/// Without the shared rule book a teammate with its own `full` preset runs `touch` the
/// project's deny rule forbids.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deny_rules_bind_teammates() {
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
            "rules": {"bash": [{"deny": "touch *"}]},
            "allowUnconfinedBash": true,
            "teammates": [{"name": "helper", "preset": "full"}]
        }),
    );
    let run = env.run(&["exec", "go"]).await;
    run.expect_code(8);
    assert!(!env.workspace().join("ran").exists());
    assert!(run.stderr.contains("denied"), "{}", run.stderr);
}

async fn explain(env: &Env, args: &[&str]) -> Value {
    let mut all = vec!["rules", "explain", "--json"];
    all.extend_from_slice(args);
    let run = env.run(&all).await;
    run.expect_code(0);
    serde_json::from_str(&run.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explain_says_what_a_call_would_meet() {
    let server = FakeServer::start().await.unwrap();
    let env = Env::new(
        &server,
        json!({
            "tools": {"bash": "ask"},
            "rules": {"bash": [{"allow": "git status"}, {"deny": "rm -rf *"}]}
        }),
    );
    let e = explain(&env, &["--", "git  status"]).await;
    assert_eq!(e["decision"], "allow", "{e}");
    assert_eq!(e["byRule"], true);
    let e = explain(&env, &["--", "git status && rm -rf x"]).await;
    assert_eq!(e["decision"], "deny", "{e}");
    assert!(e["why"].as_str().unwrap().contains("rules.bash[1]"), "{e}");
    let e = explain(&env, &["--", "git status; ls"]).await;
    assert_eq!(e["decision"], "ask", "{e}");
    assert_eq!(e["proposedRules"], json!(["git status", "ls"]));
    let e = explain(&env, &["--tool", "grep", "--", "src"]).await;
    assert_eq!(e["decision"], "deny", "{e}");

    let run = env.run(&["rules", "explain", "--", "git status"]).await;
    let text = run.stdout;
    assert!(
        text.starts_with("bash: runs — allowed by rules.bash[0] \"git status\""),
        "{text}"
    );
}

/// A cloned folder's allow rules wait for trust like its grants; its deny rules apply.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn untrusted_allow_rules_do_not_count() {
    let env = Env::bare();
    env.write_untrusted_settings(
        r#"{"version": 1, "preset": "readonly", "tools": {"bash": "ask"},
            "rules": {"bash": [{"allow": "curl *"}, {"deny": "ls *"}]}}"#,
    );
    let e = explain(&env, &["--", "curl evil.example"]).await;
    assert_eq!(e["decision"], "deny", "bash itself waits for trust: {e}");
    let err = env.run(&["rules", "explain", "--", "curl x"]).await.stderr;
    assert!(err.contains("rules.bash") && err.contains("trust"), "{err}");
    let text = env.run(&["rules", "list"]).await.stdout;
    assert!(
        text.contains("rules.bash[0]  allow  curl *  (waits for trust)"),
        "{text}"
    );
    assert!(text.contains("rules.bash[1]  deny   ls *\n"), "{text}");
}
