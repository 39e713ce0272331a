//! Hooks (issue 37) through the real `paddock` binary and the fake model: each event with a
//! real script behind the wall, both failure settings, and Claude Code's published examples.
//! Hostile cases are in `hooks_hostile.rs`.

use std::os::unix::fs::PermissionsExt;

use paddock_fake_model::{FakeServer, Reply};
use paddock_protocol::{AgentEvent, HookOutcome, HookPoint};
use serde_json::{Value, json};

use crate::common::{Env, chat_bodies, tool_contents};

/// Writes an executable script under the project's `.paddock/hooks/` and returns how a hook
/// command names it.
pub fn script(env: &Env, name: &str, body: &str) -> String {
    let dir = env.project().join(".paddock/hooks");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!("\"$PADDOCK_PROJECT_DIR\"/.paddock/hooks/{name}")
}

/// A project whose settings (trusted) point at `server` with the full preset and `hooks`.
pub fn with_hooks(server: &FakeServer, hooks: Value) -> Env {
    let env = Env::new(server, json!({"preset": "full"}));
    set_hooks(&env, server, hooks, true);
    env
}

/// Rewrites the settings with `hooks`, trusted or as a cloned repository would leave them.
pub fn set_hooks(env: &Env, server: &FakeServer, hooks: Value, trusted: bool) {
    let settings = json!({
        "version": 1,
        "provider": "openai-compatible",
        "baseUrl": server.url(),
        "model": "fake-model",
        "preset": "full",
        "hooks": hooks,
    })
    .to_string();
    if trusted {
        env.write_settings(&settings);
    } else {
        env.write_untrusted_settings(&settings);
    }
}

pub fn hook_runs(events: &[AgentEvent]) -> Vec<(HookPoint, HookOutcome, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Hook(h) => {
                Some((h.point, h.outcome, h.message.clone().unwrap_or_default()))
            }
            _ => None,
        })
        .collect()
}

fn bash(command: &str) -> Reply {
    Reply::tool_call("bash", json!({"command": command}))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pre_call_hook_refuses_git_push_with_a_reason_the_model_sees_and_nothing_runs() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        bash("git push origin main; touch pushed"),
        bash("touch fine"),
        Reply::text("done"),
    ]);
    let env = Env::new(&server, json!({"preset": "full"}));
    let refuse = script(
        &env,
        "no-push.sh",
        "#!/bin/sh\necho 'pushing is for humans: ask Dana' >&2\nexit 2\n",
    );
    set_hooks(
        &env,
        &server,
        json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": refuse, "rule": "bash(git push *)"}
        ]}]}),
        true,
    );
    let run = env.run(&["exec", "--json", "push it"]).await;
    // A refused call ends the run with the denial code, as a grant's refusal does.
    run.expect_code(8);
    let seen = tool_contents(&chat_bodies(&server)[1]);
    assert!(
        seen[0].contains("a hook refused it") && seen[0].contains("pushing is for humans"),
        "{seen:?}"
    );
    assert!(!env.workspace().join("pushed").exists(), "the push ran");
    assert!(
        env.workspace().join("fine").exists(),
        "other commands still run"
    );
    let hooks = hook_runs(&run.json().events);
    assert_eq!(hooks.len(), 1, "only git push is the rule's: {hooks:?}");
    assert_eq!(
        (hooks[0].0, hooks[0].1),
        (HookPoint::PreToolUse, HookOutcome::Deny)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_post_call_formatter_rewrites_the_edited_file_and_the_rewind_covers_it() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call(
            "file_edit",
            json!({"path": "notes.txt", "old_string": "world", "new_string": "there"}),
        ),
        Reply::text("edited"),
    ]);
    let env = Env::new(&server, json!({"preset": "full"}));
    std::fs::create_dir_all(env.workspace()).unwrap();
    std::fs::write(env.workspace().join("notes.txt"), "hello world\n").unwrap();
    let format = script(
        &env,
        "upper.py",
        "#!/usr/bin/env python3\nimport json, sys\n\
         path = json.load(sys.stdin)['tool_input']['file_path']\n\
         text = open(path).read()\nopen(path, 'w').write(text.upper())\n",
    );
    set_hooks(
        &env,
        &server,
        json!({"PostToolUse": [{"matcher": "Edit|MultiEdit|Write", "hooks": [
            {"type": "command", "command": format}
        ]}]}),
        true,
    );
    let run = env.run(&["exec", "--json", "edit it"]).await;
    run.expect_code(0);
    let notes = env.workspace().join("notes.txt");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "HELLO THERE\n");
    let json = run.json();
    let changed = json.events.iter().any(|e| {
        matches!(e, AgentEvent::RunChanges { files, .. } if files.iter().any(|f| f.path == "notes.txt"))
    });
    assert!(changed, "the run's changes name the file");
    // The checkpoint before the prompt puts the file back, the formatter's change included.
    let id = run.session_id();
    env.run(&["rewind", &id, "--to", "1", "--files-only"])
        .await
        .expect_code(0);
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "hello world\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_hook_asks_for_one_more_turn() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([Reply::text("all done"), Reply::text("tests pass, done")]);
    let env = Env::new(&server, json!({"preset": "full"}));
    let once = script(
        &env,
        "tests-first.sh",
        "#!/bin/sh\nif grep -q '\"stop_hook_active\":false'; then\n\
         echo '{\"decision\": \"block\", \"reason\": \"run the tests first\"}'\nfi\n",
    );
    set_hooks(
        &env,
        &server,
        json!({"Stop": [{"hooks": [{"type": "command", "command": once}]}]}),
        true,
    );
    let run = env.run(&["exec", "--json", "finish"]).await;
    run.expect_code(0);
    let bodies = chat_bodies(&server);
    assert_eq!(bodies.len(), 2, "one more turn, then it may stop");
    let last = bodies[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .to_string();
    assert!(last.contains("run the tests first"), "{last}");
    let outcomes: Vec<HookOutcome> = hook_runs(&run.json().events).iter().map(|h| h.1).collect();
    assert_eq!(outcomes, [HookOutcome::GoOn, HookOutcome::Continue]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_out_hook_warns_when_open_and_refuses_when_closed() {
    for (on_error, runs) in [("open", true), ("closed", false)] {
        let server = FakeServer::start().await.unwrap();
        server.push_all([bash("touch ran"), Reply::text("done")]);
        let env = with_hooks(
            &server,
            json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": "sleep 30", "timeout": 1, "onError": on_error}
            ]}]}),
        );
        let started = std::time::Instant::now();
        let run = env.run(&["exec", "--json", "go"]).await;
        run.expect_code(if runs { 0 } else { 8 });
        assert!(started.elapsed().as_secs() < 20, "the hook was stopped");
        assert_eq!(
            env.workspace().join("ran").exists(),
            runs,
            "onError {on_error}"
        );
        let hooks = hook_runs(&run.json().events);
        let expected = if runs {
            HookOutcome::Failed
        } else {
            HookOutcome::Deny
        };
        assert_eq!(hooks[0].1, expected, "{hooks:?}");
        assert!(hooks[0].2.contains("timed out"), "{hooks:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_hook_adds_the_tickets_text_and_the_start_hook_runs_once() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([Reply::text("on it"), Reply::text("still on it")]);
    let env = with_hooks(
        &server,
        json!({
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo 'ticket PAD-12: fix the login'"}]}],
            "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo 'branch: main'"}]}]
        }),
    );
    let run = env.run(&["exec", "fix it"]).await;
    run.expect_code(0);
    let first = chat_bodies(&server)[0].to_string();
    assert!(
        first.contains("ticket PAD-12") && first.contains("branch: main"),
        "{first}"
    );
    // Resumed: the prompt hook again, the startup-only start hook not.
    env.run(&["resume", &run.session_id(), "and now?"])
        .await
        .expect_code(0);
    let second = chat_bodies(&server)[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .to_string();
    assert!(
        second.contains("ticket PAD-12") && !second.contains("branch: main"),
        "{second}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_codes_file_protection_example_behaves_the_same() {
    // The "file protection" example of Claude Code's hooks guide (code.claude.com/docs/en/
    // hooks-guide, read 2026-12-06 through its published copies; see paddock-hooks' tests).
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call("file_write", json!({"path": ".env", "content": "KEY=1"})),
        Reply::tool_call("file_write", json!({"path": "ok.txt", "content": "fine"})),
        Reply::text("done"),
    ]);
    let env = with_hooks(
        &server,
        json!({"hooks": {"PreToolUse": [{"matcher": "Edit|MultiEdit|Write", "hooks": [{
            "type": "command",
            "command": "python3 -c \"import json, sys; data=json.load(sys.stdin); path=data.get('tool_input',{}).get('file_path',''); sys.exit(2 if any(p in path for p in ['.env', 'package-lock.json', '.git/']) else 0)\""
        }]}]}}),
    );
    env.run(&["exec", "write them"]).await.expect_code(8);
    assert!(
        !env.workspace().join(".env").exists(),
        "the protected file was written"
    );
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("ok.txt")).unwrap(),
        "fine"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hooks_list_and_rules_explain_show_the_hooks_and_what_they_decide() {
    let server = FakeServer::start().await.unwrap();
    let env = Env::new(&server, json!({"preset": "full"}));
    let audit = script(
        &env,
        "audit.sh",
        "#!/bin/sh\necho '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \
         \"permissionDecision\": \"ask\", \"permissionDecisionReason\": \"audited\"}}'\n",
    );
    std::fs::create_dir_all(env.config_dir()).unwrap();
    let mine = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": audit, "onError": "closed"}
    ]}]}});
    std::fs::write(env.config_dir().join("hooks.json"), mine.to_string()).unwrap();
    let refuse = script(
        &env,
        "no-push.sh",
        "#!/bin/sh\necho 'pushing is for humans' >&2\nexit 2\n",
    );
    let project_hooks = |command: &str| {
        json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": command, "rule": "bash(git push *)"}
        ]}]})
    };
    set_hooks(&env, &server, project_hooks(&refuse), true);

    let listed = |run: &crate::common::Run| -> Vec<Value> {
        run.stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let run = env.run(&["hooks", "list", "--json"]).await;
    run.expect_code(0);
    let hooks = listed(&run);
    assert_eq!(hooks.len(), 2, "{}", run.stdout);
    assert_eq!(
        (
            &hooks[0]["source"],
            &hooks[0]["fail_closed"],
            &hooks[0]["waiting"]
        ),
        (&json!("yours"), &json!(true), &json!(false))
    );
    assert_eq!(
        (&hooks[1]["source"], &hooks[1]["rule"], &hooks[1]["waiting"]),
        (&json!("project"), &json!("bash(git push *)"), &json!(false))
    );

    // Explain names the hooks a call would meet; only a push meets the project's.
    let explain = |call: &'static str| {
        let env = &env;
        async move {
            let run = env.run(&["rules", "explain", "--json", "--", call]).await;
            run.expect_code(0);
            serde_json::from_str::<Value>(run.stdout.trim()).unwrap()["hooks"]
                .as_array()
                .unwrap()
                .len()
        }
    };
    assert_eq!(explain("git push origin main").await, 2);
    assert_eq!(explain("git status").await, 1);
    // --run-hooks runs them (behind the wall) and says what they decide together.
    let run = env
        .run(&[
            "rules",
            "explain",
            "--run-hooks",
            "--",
            "git push origin main",
        ])
        .await;
    run.expect_code(0);
    assert!(
        run.stdout
            .contains("refused by a hook: pushing is for humans"),
        "{}",
        run.stdout
    );
    let run = env
        .run(&["rules", "explain", "--run-hooks", "--", "git status"])
        .await;
    assert!(
        run.stdout.contains("a hook asks first: audited"),
        "{}",
        run.stdout
    );

    // Changed after trust: listed as waiting, and it does not run.
    set_hooks(
        &env,
        &server,
        project_hooks(&format!("{refuse} --now")),
        false,
    );
    let hooks = listed(&env.run(&["hooks", "list", "--json"]).await);
    assert_eq!(hooks[1]["waiting"], json!(true));
}
