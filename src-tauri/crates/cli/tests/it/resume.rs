//! `paddock resume` after the process was killed (SIGKILL) mid-turn, and after a session
//! file was left with a lost tool result and a torn line.

use std::io::Write;

use paddock_fake_model::{FakeServer, Reply};
use paddock_protocol::{ContentBlock, Message, Role, SessionRecord, ToolCall};
use paddock_session::INTERRUPTED_RESULT;
use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt;

use crate::common::{
    Env, RUN_LIMIT, assert_paired, assert_wire_paired, chat_bodies, read_until, tool_contents,
};

/// Starts `paddock exec --json PROMPT`, reads until `stop`, then kills it with SIGKILL.
/// Returns the session id.
async fn kill_when(env: &Env, args: &[&str], mut stop: impl FnMut(&Value, u32) -> bool) -> String {
    let mut child = env.spawn(args);
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut turns = 0;
    let seen = read_until(&mut lines, |v| {
        turns += u32::from(v["type"] == "turn_started");
        stop(v, turns)
    })
    .await;
    child.start_kill().unwrap(); // SIGKILL: no cleanup runs.
    let status = tokio::time::timeout(RUN_LIMIT, child.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(status.code(), None, "killed by a signal");
    seen[0]["id"].as_str().unwrap().to_owned()
}

/// The texts of the user's prompts in a session, in order.
fn prompts(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .filter(|m| m.role == Role::User && m.tool_results().next().is_none())
        .map(Message::text)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_after_a_kill_while_the_reply_streams() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call(
            "file_write",
            json!({"path": "done.txt", "content": "turn 1"}),
        ),
        // A slow reply: the process dies while it streams.
        Reply::text("a long answer that is still streaming when the process dies")
            .with_chunk_chars(2)
            .with_drip_ms(100),
    ]);
    let env = Env::new(&server, json!({"preset": "readwrite"}));
    let id = kill_when(&env, &["exec", "--json", "write done.txt"], |v, turns| {
        turns == 2 && v["type"] == "text_delta"
    })
    .await;

    // The completed first turn is on disk, paired; the half-streamed answer is not.
    let stored = env.load(&id);
    assert_paired(&stored.messages);
    assert_eq!(stored.messages.len(), 3, "{:#?}", stored.messages);
    assert!(
        stored.messages[1]
            .tool_calls()
            .any(|c| c.name == "file_write")
    );
    assert!(!stored.messages[2].tool_results().any(|r| r.is_error));
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("done.txt")).unwrap(),
        "turn 1"
    );

    server.push(Reply::text("Picked up where we left off."));
    let run = env.run(&["resume", &id, "--json", "please go on"]).await;
    run.expect_code(0);
    let out = run.json();
    assert_eq!(out.session["id"], json!(id));
    assert_eq!(out.session["resumed"], json!(true));

    // The model saw the first turn, paired, then the new prompt.
    let bodies = chat_bodies(&server);
    let next = bodies.last().unwrap();
    assert_wire_paired(next);
    assert_eq!(tool_contents(next).len(), 1);
    let last = next["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(last["content"], json!("please go on"));

    let after = env.load(&id);
    assert_paired(&after.messages);
    assert_eq!(prompts(&after.messages), ["write done.txt", "please go on"]);
    assert_eq!(
        after.messages.last().unwrap().text(),
        "Picked up where we left off."
    );
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_after_a_kill_while_a_tool_runs() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call("file_write", json!({"path": "a.txt", "content": "kept"})),
        // bash is still sleeping when the process dies.
        Reply::tool_call("bash", json!({"command": "sleep 3"})),
    ]);
    // Where the OS sandbox is missing, bash would be withheld; this test needs it to run.
    let env = Env::new(
        &server,
        json!({"preset": "full", "allowUnconfinedBash": true}),
    );
    let id = kill_when(&env, &["exec", "--json", "write, then wait"], |v, _| {
        v["type"] == "tool_call_started" && v["call"]["name"] == "bash"
    })
    .await;

    // The bash call was on disk before it ran (bash may have changed files before the
    // kill); resuming pairs it with an "interrupted" result.
    let stored = env.load(&id);
    assert_eq!(stored.messages.len(), 4, "{:#?}", stored.messages);
    assert_paired(&stored.messages[..3]);
    assert!(stored.messages[3].tool_calls().any(|c| c.name == "bash"));
    // Its turn's checkpoint was written before it ran, so its files can be put back.
    let points = env.run(&["rewind", &id, "--list"]).await;
    points.expect_code(0);
    let before_bash = points
        .stdout
        .lines()
        .find(|l| l.starts_with("1.2 "))
        .unwrap_or_default();
    assert!(
        before_bash.ends_with("files + conversation"),
        "{}",
        points.stdout
    );

    server.push(Reply::text("resumed"));
    env.run(&["resume", &id, "try again"]).await.expect_code(0);
    let bodies = chat_bodies(&server);
    assert_eq!(bodies.len(), 3);
    assert_wire_paired(&bodies[2]);
    let results = tool_contents(&bodies[2]);
    assert_eq!(results.len(), 2, "the write's and the bash's: {results:?}");
    assert!(!results[0].contains("Interrupted"), "{results:?}");
    assert!(results[1].ends_with(INTERRUPTED_RESULT), "{results:?}");
    assert_paired(&env.load(&id).messages);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_repairs_a_lost_tool_result_and_a_torn_line() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text("first answer"));
    let env = Env::new(&server, json!({"preset": "readonly"}));
    let first = env.run(&["exec", "start"]).await;
    first.expect_code(0);
    let id = first.session_id();

    // What a crash between writing a call and its result leaves: the call, then half a line.
    let path = env
        .store()
        .root()
        .read_dir()
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
        .join(format!("{id}.jsonl"));
    let call = SessionRecord::Message {
        message: Message {
            role: Role::Assistant,
            content: vec![ContentBlock::ToolCall(
                ToolCall {
                    id: "call_lost".into(),
                    name: "glob".into(),
                    input: json!({"pattern": "*"}),
                    parsed_from_text: false,
                }
                .into(),
            )],
        },
    };
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    writeln!(file, "{}", serde_json::to_string(&call).unwrap()).unwrap();
    write!(file, r#"{{"type":"message","message":{{"role":"us"#).unwrap();
    drop(file);

    server.push(Reply::text("carrying on"));
    let run = env.run(&["resume", &id, "and now?"]).await;
    run.expect_code(0);
    assert!(
        run.stderr.contains("could not be read and was skipped"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("marked as interrupted"),
        "{}",
        run.stderr
    );

    let body = chat_bodies(&server).pop().unwrap();
    assert_wire_paired(&body);
    let results = tool_contents(&body);
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(results[0].contains(INTERRUPTED_RESULT), "{results:?}");

    let after = env.load(&id);
    assert_paired(&after.messages);
    assert_eq!(prompts(&after.messages), ["start", "and now?"]);
    assert_eq!(after.messages.last().unwrap().text(), "carrying on");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_keeps_the_sessions_model_unless_told_otherwise() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([Reply::text("one"), Reply::text("two"), Reply::text("three")]);
    // No model in the settings: the first run names it with a flag.
    let env = Env::new(&server, json!({"model": null}));
    let first = env.run(&["exec", "--model", "picked-model", "hi"]).await;
    first.expect_code(0);
    let id = first.session_id();
    env.run(&["resume", &id, "again"]).await.expect_code(0);
    env.run(&["resume", "--model", "other-model", &id, "and again"])
        .await
        .expect_code(0);
    let models: Vec<Value> = chat_bodies(&server)
        .iter()
        .map(|b| b["model"].clone())
        .collect();
    assert_eq!(
        models,
        [
            json!("picked-model"),
            json!("picked-model"),
            json!("other-model")
        ]
    );
}
