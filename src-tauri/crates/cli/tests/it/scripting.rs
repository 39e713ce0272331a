//! The CLI in scripts: a final `message` record in --json, --output-last-message,
//! --output-schema (exit 9 when the answer still does not match), resume --last,
//! sessions show --json, and compact / compact --undo.

use paddock_fake_model::{FakeServer, Reply};
use paddock_protocol::AgentEvent;
use serde_json::json;

use crate::common::{Env, chat_bodies};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_ends_with_the_whole_answer_and_the_answer_can_go_to_a_file() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text("The whole answer, in one piece.").with_chunk_chars(4));
    let env = Env::new(&server, json!({}));
    let file = env.project().join("answer.txt");
    let run = env
        .run(&[
            "exec",
            "--json",
            "--output-last-message",
            file.to_str().unwrap(),
            "hi",
        ])
        .await;
    run.expect_code(0);
    let lines: Vec<serde_json::Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let n = lines.len();
    assert_eq!(lines[n - 2]["type"], "message", "{}", run.stdout);
    assert_eq!(lines[n - 2]["text"], "The whole answer, in one piece.");
    assert_eq!(lines[n - 1]["type"], "exit");
    // The deltas are still there, and the context meter's readings.
    assert!(lines.iter().filter(|l| l["type"] == "text_delta").count() > 1);
    assert!(
        lines
            .iter()
            .any(|l| l["type"] == "context" && l["used"].as_u64() > Some(0))
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "The whole answer, in one piece."
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_schema_is_checked_with_one_retry_then_exit_9() {
    let server = FakeServer::start().await.unwrap();
    // The model fences its JSON; the answer file gets the JSON itself.
    server.push_all([Reply::text("Here:\n```json\n{\"answer\": 42}\n```")]);
    let env = Env::new(&server, json!({}));
    let schema = env.project().join("schema.json");
    std::fs::write(
        &schema,
        r#"{"type":"object","properties":{"answer":{"type":"integer"}},"required":["answer"]}"#,
    )
    .unwrap();
    let last = env.project().join("last.json");
    let ok = env
        .run(&[
            "exec",
            "--json",
            "--output-schema",
            schema.to_str().unwrap(),
            "--output-last-message",
            last.to_str().unwrap(),
            "compute",
        ])
        .await;
    ok.expect_code(0);
    let written: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&last).unwrap())
        .expect("the answer file is the structured JSON");
    assert_eq!(written, json!({"answer": 42}));
    let message: serde_json::Value = ok
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|l| l["type"] == "message")
        .unwrap();
    assert_eq!(message["structured"], json!({"answer": 42}));

    server.push_all([Reply::text("forty-two"), Reply::text("still words")]);
    let bad = env
        .run(&[
            "exec",
            "--output-schema",
            schema.to_str().unwrap(),
            "compute",
        ])
        .await;
    bad.expect_code(9);
    assert!(
        bad.stderr.contains("did not match --output-schema"),
        "{}",
        bad.stderr
    );
    // The retry told the model what was wrong.
    let retry = chat_bodies(&server).pop().unwrap().to_string();
    assert!(retry.contains("forty-two"), "{retry}");

    std::fs::write(&schema, "not json").unwrap();
    env.run(&["exec", "--output-schema", schema.to_str().unwrap(), "x"])
        .await
        .expect_code(2);
    // JSON that is no schema is a usage error before the model is asked, not its fault.
    let asked = server.model_requests().len();
    std::fs::write(&schema, r#"{"type": "bogus"}"#).unwrap();
    let bogus = env
        .run(&["exec", "--output-schema", schema.to_str().unwrap(), "x"])
        .await;
    bogus.expect_code(2);
    assert!(
        bogus.stderr.contains("the output schema itself is invalid"),
        "{}",
        bogus.stderr
    );
    assert_eq!(server.model_requests().len(), asked, "nothing was sent");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_last_continues_the_newest_session_and_show_json_reads_it() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::text("first"),
        Reply::text("second"),
        Reply::text("again"),
    ]);
    let env = Env::new(&server, json!({}));
    env.run(&["exec", "one"]).await.expect_code(0);
    // Session ids are ordered by time to the second.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let newest = env.run(&["exec", "two"]).await.session_id();
    let resumed = env.run(&["resume", "--last", "three"]).await;
    resumed.expect_code(0);
    assert_eq!(resumed.session_id(), newest);
    let show = env.run(&["sessions", "show", "--json", &newest]).await;
    show.expect_code(0);
    let value: serde_json::Value = serde_json::from_str(show.stdout.trim()).unwrap();
    assert_eq!(value["header"]["id"], newest.as_str());
    assert!(show.stdout.contains("three"));
    env.run(&["resume", "--last"]).await.expect_code(2);
    let bare = Env::new(&server, json!({}));
    bare.run(&["resume", "--last", "x"]).await.expect_code(2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compact_summarizes_between_prompts_and_undo_brings_the_turns_back() {
    let server = FakeServer::start().await.unwrap();
    let mut replies = Vec::new();
    for i in 0..6 {
        replies.push(Reply::tool_call(
            "file_write",
            json!({"path": format!("f{i}.txt"), "content": "x".repeat(300)}),
        ));
    }
    replies.push(Reply::text("Wrote six files."));
    replies.push(Reply::text("SUMMARY: six files were written."));
    server.push_all(replies);
    let env = Env::new(&server, json!({}));
    let run = env
        .run(&["exec", "--preset", "readwrite", "write six files"])
        .await;
    run.expect_code(0);
    let id = run.session_id();
    let full = env.load(&id).history;

    let compact = env.run(&["compact", &id]).await;
    compact.expect_code(0);
    assert!(
        compact.stdout.contains("SUMMARY: six files were written."),
        "{}",
        compact.stdout
    );
    let compacted = env.load(&id);
    assert!(compacted.history.len() < full.len());
    assert!(
        compacted.history[0].text().contains("write six files"),
        "the user's words stay"
    );
    assert!(
        compacted
            .events
            .iter()
            .any(|e| matches!(e, AgentEvent::Compacted(c) if c.after_tokens < c.before_tokens))
    );

    env.run(&["compact", &id, "--undo"]).await.expect_code(0);
    assert_eq!(env.load(&id).history, full, "the exact history before");
    env.run(&["compact", &id, "--undo"]).await.expect_code(2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_context_overflow_is_met_with_one_compaction_and_a_retry() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        // Enough words before the last turn that a summary is shorter than them.
        Reply::tool_call(
            "file_write",
            json!({"path": "a.txt", "content": "a".repeat(400)}),
        ),
        Reply::tool_call(
            "file_write",
            json!({"path": "b.txt", "content": "b".repeat(400)}),
        ),
        // The provider says the conversation no longer fits...
        Reply::context_overflow(),
        // ...the summarizer answers...
        Reply::text("SUMMARY: wrote a.txt and b.txt."),
        // ...and the same turn, retried on the compacted history, finishes.
        Reply::text("Done after compacting."),
    ]);
    let env = Env::new(&server, json!({}));
    let run = env
        .run(&["exec", "--preset", "readwrite", "write two files"])
        .await;
    run.expect_code(0);
    assert!(
        run.stdout.contains("Done after compacting."),
        "{}",
        run.stdout
    );
    let session = env.load(&run.session_id());
    assert!(session.events.iter().any(|e| matches!(
        e,
        AgentEvent::Compacted(c) if c.reason == paddock_protocol::CompactionReason::Overflow
    )));
    let calls = server.model_requests();
    assert_eq!(calls.len(), 5);
    let retry = calls[4].body.to_string();
    assert!(retry.contains("SUMMARY: wrote a.txt and b.txt."), "{retry}");
    assert!(
        retry.contains("write two files"),
        "the user's words stay: {retry}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_compaction_during_a_run_is_told_on_the_terminal() {
    let server = FakeServer::start().await.unwrap();
    let write = |i: u32| {
        Reply::tool_call(
            "file_write",
            json!({"path": format!("f{i}.txt"), "content": "x".repeat(2_000)}),
        )
    };
    server.push_all([
        write(1),
        write(2),
        Reply::text("SUMMARY: two files were written."),
        Reply::text("Done."),
    ]);
    // A small window: the third call would pass 80% of it, so the start is summarized first.
    let env = Env::new(&server, json!({"contextWindow": 1_200}));
    let run = env
        .run(&["exec", "--preset", "readwrite", "write two files"])
        .await;
    run.expect_code(0);
    assert_eq!(run.stdout.trim_end(), "Done.");
    let told: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("paddock: compacted the conversation"))
        .collect();
    assert_eq!(told.len(), 1, "{}", run.stderr);
    assert!(
        told[0].contains("the context window was filling up"),
        "{}",
        told[0]
    );
}
