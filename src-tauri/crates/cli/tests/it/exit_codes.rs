//! Every exit code `paddock --help` documents, each from a real run.

use paddock_fake_model::{FakeServer, Fault, Reply};
use paddock_protocol::AgentEvent;
use serde_json::json;

use crate::common::{Env, assert_paired, read_until};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn usage_errors_exit_2() {
    let server = FakeServer::start().await.unwrap();
    let env = Env::new(&server, json!({}));

    let unknown_flag = env.run(&["exec", "--no-such-flag", "hi"]).await;
    unknown_flag.expect_code(2);
    assert!(
        unknown_flag.stderr.contains("--no-such-flag"),
        "{}",
        unknown_flag.stderr
    );

    // A flag's error names the flag, not the settings field it lands in.
    let no_turns = env.run(&["exec", "--max-turns", "0", "hi"]).await;
    no_turns.expect_code(2);
    assert!(
        no_turns.stderr.contains("--max-turns"),
        "{}",
        no_turns.stderr
    );

    let bad_preset = env.run(&["exec", "--preset", "everything", "hi"]).await;
    bad_preset.expect_code(2);
    assert!(
        bad_preset.stderr.contains("unknown preset 'everything'"),
        "{}",
        bad_preset.stderr
    );

    let missing = env
        .run(&["exec", "--project", "/nonexistent/paddock", "hi"])
        .await;
    missing.expect_code(2);
    assert!(
        missing
            .stderr
            .starts_with("paddock: error: the project folder"),
        "{}",
        missing.stderr
    );

    let empty = env.run(&["exec", "  "]).await;
    empty.expect_code(2);
    assert!(
        empty.stderr.contains("the prompt is empty"),
        "{}",
        empty.stderr
    );

    let no_session = env.run(&["resume", "20260101000000-00000000", "hi"]).await;
    no_session.expect_code(2);
    assert!(
        no_session.stderr.contains("no session"),
        "{}",
        no_session.stderr
    );

    let no_model = Env::bare();
    let run = no_model
        .run(&[
            "exec",
            "--provider",
            "openai-compatible",
            "--base-url",
            &server.url(),
            "hi",
        ])
        .await;
    run.expect_code(2);
    assert!(run.stderr.contains("no model is set"), "{}", run.stderr);
    assert_eq!(server.requests().len(), 0, "nothing reached the model");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_settings_file_exits_3_naming_the_line_or_field() {
    let env = Env::bare();
    env.write_settings("{\n  \"version\": 1,\n  \"model\": \"m\",\n}\n");
    let syntax = env.run(&["exec", "hi"]).await;
    syntax.expect_code(3);
    let line = syntax.stderr.lines().next().unwrap_or_default();
    assert!(line.starts_with("paddock: error: "), "{}", syntax.stderr);
    assert!(line.contains("settings.json line 4"), "{line}");
    assert_eq!(
        syntax.stderr.lines().count(),
        1,
        "one line: {}",
        syntax.stderr
    );

    env.write_settings(r#"{"version": 1, "modle": "m"}"#);
    let field = env.run(&["exec", "--json", "hi"]).await;
    field.expect_code(3);
    assert!(field.stderr.contains("modle"), "{}", field.stderr);
    // An error line, then the exit line every --json stream ends with.
    let lines: Vec<serde_json::Value> = field
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{}", field.stdout);
    assert_eq!(lines[0]["type"], json!("error"));
    assert_eq!(lines[0]["code"], json!(3));
    assert!(lines[0]["message"].as_str().unwrap().contains("modle"));
    assert_eq!(lines[1]["type"], json!("exit"));
    assert_eq!(lines[1]["code"], json!(3));
    assert_eq!(lines[1]["reason"], json!("not_started"));
    assert_eq!(lines[1]["session"], json!(null));

    env.write_settings(r#"{"version": 1, "preset": "everything"}"#);
    let value = env.run(&["exec", "hi"]).await;
    value.expect_code(3);
    assert!(value.stderr.contains("`preset`"), "{}", value.stderr);

    env.write_settings(r#"{"version": 9}"#);
    let version = env.run(&["exec", "hi"]).await;
    version.expect_code(3);
    assert!(
        version.stderr.contains("settings version 9"),
        "{}",
        version.stderr
    );
    assert!(!version.stderr.contains("panicked"), "{}", version.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn provider_errors_exit_4() {
    // The server has no reply scripted: it answers 400, which is not retried.
    let server = FakeServer::start().await.unwrap();
    let env = Env::new(&server, json!({}));
    let run = env.run(&["exec", "hi"]).await;
    run.expect_code(4);
    assert!(
        run.stderr.contains("paddock: model error:"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("no scripted reply left"),
        "{}",
        run.stderr
    );

    // A vendor that needs a key, with none anywhere.
    let anthropic = env
        .run(&[
            "exec",
            "--provider",
            "anthropic",
            "--base-url",
            &server.url(),
            "hi",
        ])
        .await;
    anthropic.expect_code(4);
    assert!(
        anthropic.stderr.starts_with("paddock: error: "),
        "{}",
        anthropic.stderr
    );
    assert!(
        anthropic.stderr.contains("environment variable"),
        "says how to provide a key: {}",
        anthropic.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn budget_exceeded_exits_5() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call("glob", json!({"pattern": "*"})).with_usage(80, 40),
        Reply::text("never asked"),
    ]);
    let env = Env::new(&server, json!({"preset": "readonly"}));
    let run = env.run(&["exec", "--json", "--budget", "100", "hi"]).await;
    run.expect_code(5);
    assert_eq!(run.json().exit["reason"], json!("budget_exceeded"));
    assert_eq!(server.pending(), 1, "stopped after the first turn");
    assert_paired(&env.load(&run.session_id()).messages);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loop_exits_6() {
    let server = FakeServer::start().await.unwrap();
    server.push_all((0..6).map(|_| Reply::tool_call("glob", json!({"pattern": "*.rs"}))));
    let env = Env::new(&server, json!({"preset": "readonly"}));
    let run = env.run(&["exec", "hi"]).await;
    run.expect_code(6);
    assert!(
        run.stderr.contains("paddock: loop detected"),
        "{}",
        run.stderr
    );
    assert_paired(&env.load(&run.session_id()).messages);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_turns_exits_7() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call("glob", json!({"pattern": "*"})),
        Reply::text("never asked"),
    ]);
    let env = Env::new(&server, json!({"preset": "readonly", "maxTurns": 5}));
    let run = env.run(&["exec", "--max-turns", "1", "hi"]).await;
    run.expect_code(7);
    assert!(
        run.stderr
            .contains("max turns reached after 1 model call(s)"),
        "{}",
        run.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_tool_call_exits_8_unless_ask_is_allowed() {
    let server = FakeServer::start().await.unwrap();
    let write = || Reply::tool_call("file_write", json!({"path": "a.txt", "content": "x"}));
    server.push_all([write(), Reply::text("could not write")]);
    let env = Env::new(&server, json!({"preset": "readonly"}));

    let not_granted = env.run(&["exec", "--json", "write a.txt"]).await;
    not_granted.expect_code(8);
    let out = not_granted.json();
    assert_eq!(out.exit["reason"], json!("denied"));
    assert_eq!(out.exit["denied"], json!(["file_write"]));
    assert!(out.events.iter().any(|e| matches!(
        e,
        AgentEvent::ToolCallFinished { is_error: true, output, .. } if output.contains("not granted")
    )));
    assert!(!env.workspace().join("a.txt").exists());

    // Ask, headless: denied unless --ask-allows.
    server.push_all([write(), Reply::text("could not write")]);
    let asked = env
        .run(&["exec", "--ask", "file_write", "write a.txt"])
        .await;
    asked.expect_code(8);
    assert!(
        asked.stderr.contains("tool file_write a.txt -> denied ("),
        "{}",
        asked.stderr
    );
    assert!(asked.stderr.contains("--ask-allows"), "{}", asked.stderr);
    assert!(!env.workspace().join("a.txt").exists());

    server.push_all([write(), Reply::text("written")]);
    let allowed = env
        .run(&["exec", "--ask", "file_write", "--ask-allows", "write a.txt"])
        .await;
    allowed.expect_code(0);
    assert!(env.workspace().join("a.txt").exists());
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_aborts_cleanly_with_130() {
    use rustix::process::{Pid, Signal, kill_process};
    use tokio::io::AsyncBufReadExt;

    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call("glob", json!({"pattern": "*"})),
        // Streams a little, then hangs: the run is mid-turn when Ctrl-C comes.
        Reply::text("partial answer that never ends")
            .with_chunk_chars(4)
            .with_fault(Fault::Hang { after: 4 }),
    ]);
    let env = Env::new(&server, json!({"preset": "readonly"}));
    let mut child = env.spawn(&["exec", "--json", "hi"]);
    let stdout = child.stdout.take().unwrap();
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let mut turns = 0;
    read_until(&mut lines, |v| {
        turns += u32::from(v["type"] == "turn_started");
        turns == 2 && v["type"] == "text_delta"
    })
    .await;

    let pid = Pid::from_raw(i32::try_from(child.id().unwrap()).unwrap()).unwrap();
    kill_process(pid, Signal::INT).unwrap();
    let rest = read_until(&mut lines, |v| v["type"] == "exit").await;
    let status = tokio::time::timeout(crate::common::RUN_LIMIT, child.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(status.code(), Some(130));
    let exit = rest.last().unwrap();
    assert_eq!(exit["reason"], json!("aborted"));

    let session = env.load(exit["session"].as_str().unwrap());
    assert_paired(&session.messages);
    assert_eq!(
        session.messages.len(),
        4,
        "prompt, call, result, partial answer"
    );
    assert!(session.messages[3].text().starts_with("part"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_is_said_once_and_without_colour_codes_into_a_pipe() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([Reply::status(500, None), Reply::text("ok after one retry")]);
    let env = Env::new(&server, json!({}));
    let run = env.run(&["exec", "hi"]).await;
    run.expect_code(0);
    assert_eq!(run.stdout.trim_end(), "ok after one retry");
    let said: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("retrying"))
        .collect();
    assert_eq!(said.len(), 1, "{}", run.stderr);
    assert!(said[0].starts_with("paddock: warning: "), "{}", said[0]);
    assert!(!run.stderr.contains('\u{1b}'), "{:?}", run.stderr);
}
