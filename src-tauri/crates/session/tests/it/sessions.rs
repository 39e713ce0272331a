//! Sessions on disk: write while running, read back, list, search, export, delete, and
//! recover from a torn line or a missing tool result.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use paddock_core::Fanout;
use paddock_core::protocol::{AgentEvent, ContentBlock, Message, Role, ToolCall};
use paddock_core::scripted::ScriptedTurn;
use paddock_session::{self as session, SessionError, SessionStore};
use serde_json::json;

use paddock_core::testing::*;

fn store() -> (tempfile::TempDir, SessionStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path().join("sessions"));
    (dir, store)
}

/// Runs one prompt with a session writer attached; returns the session id.
async fn run_session(
    store: &SessionStore,
    project: &Path,
    prompt: &str,
    turns: Vec<ScriptedTurn>,
) -> (String, Vec<Message>) {
    let (header, writer) = store
        .create(project, Some("anthropic"), "test-model", prompt)
        .unwrap();
    let writer = Arc::new(writer);
    let h = harness(config_allowing(&["echo"]), turns);
    let events = h.events.clone();
    let mut agent = h
        .agent
        .with_events(Arc::new(Fanout(vec![events, writer.clone()])))
        .with_history_log(writer.clone());
    agent.run(prompt).await;
    assert!(writer.error().is_none());
    (header.id, agent.history().to_vec())
}

fn tool_turns() -> Vec<ScriptedTurn> {
    vec![
        ScriptedTurn::tools(&[("echo", json!({"text": "the walrus said hello"}))]),
        ScriptedTurn::text("All done: walrus greeted."),
    ]
}

#[tokio::test(start_paused = true)]
async fn a_run_reads_back_exactly() {
    let (_d, store) = store();
    let project = Path::new("/home/user/projects/zoo");
    let (id, history) = run_session(&store, project, "Greet the walrus", tool_turns()).await;
    let loaded = store.load(project, &id).unwrap();
    assert_eq!(loaded.messages, history);
    assert!(loaded.warnings.is_empty());
    assert_eq!(loaded.header.title, "Greet the walrus");
    assert_eq!(loaded.header.model, "test-model");
    assert!(
        loaded
            .events
            .iter()
            .any(|e| matches!(e, AgentEvent::RunFinished { .. }))
    );
    assert!(
        loaded
            .events
            .iter()
            .any(|e| matches!(e, AgentEvent::ToolCallFinished { .. }))
    );
    assert!(
        !loaded
            .events
            .iter()
            .any(|e| matches!(e, AgentEvent::TextDelta { .. }))
    );
}

#[tokio::test(start_paused = true)]
async fn list_search_export_and_delete() {
    let (_d, store) = store();
    let project = Path::new("/p/zoo");
    let other = Path::new("/p/other");
    let (first, _) = run_session(&store, project, "Greet the walrus", tool_turns()).await;
    let (second, _) = run_session(
        &store,
        project,
        "Count the penguins\nthen report",
        vec![ScriptedTurn::text("42 penguins")],
    )
    .await;
    run_session(
        &store,
        other,
        "Walrus elsewhere",
        vec![ScriptedTurn::text("no")],
    )
    .await;

    let list = store.list(project).unwrap();
    let ids: Vec<&str> = list.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(list.len(), 2);
    assert!(ids.contains(&first.as_str()) && ids.contains(&second.as_str()));
    assert!(list.iter().any(|s| s.title == "Count the penguins"));

    // Found in the tool call's input and in its result, not in the other project.
    let hits = store.search(project, "WALRUS SAID").unwrap();
    let indexes: Vec<u32> = hits.iter().map(|h| h.message_index).collect();
    assert_eq!(indexes, vec![1, 2], "{hits:?}");
    assert!(hits.iter().all(|h| h.session_id == first));
    assert_eq!(hits[1].snippet, "the walrus said hello");
    assert!(
        store
            .search(project, "penguins")
            .unwrap()
            .iter()
            .all(|h| h.session_id == second)
    );
    assert!(store.search(project, "   ").unwrap().is_empty());

    let loaded = store.load(project, &first).unwrap();
    let md = session::to_markdown(&loaded);
    assert!(md.starts_with("# Greet the walrus\n"));
    assert!(md.contains("## You\n\nGreet the walrus"));
    assert!(md.contains("**Tool call** `echo`"));
    assert!(md.contains("**Result**\n\n```\nthe walrus said hello\n```"));
    assert!(md.contains("## Agent\n\nAll done: walrus greeted."));
    assert!(md.contains("end_turn after 2 turn(s)"));
    let json = session::to_json(&loaded);
    assert_eq!(json["header"]["id"], json!(first));
    assert_eq!(json["messages"].as_array().unwrap().len(), 4);

    store.delete(project, &first).unwrap();
    assert!(matches!(
        store.load(project, &first),
        Err(SessionError::NotFound(_))
    ));
    assert!(matches!(
        store.delete(project, &first),
        Err(SessionError::NotFound(_))
    ));
    assert_eq!(store.list(project).unwrap().len(), 1);
}

#[test]
fn ids_cannot_walk_out_of_the_store() {
    let (_d, store) = store();
    for bad in ["../../etc/passwd", "a/b", "", "x.jsonl", "..", "a b"] {
        assert!(
            matches!(
                store.load(Path::new("/p"), bad),
                Err(SessionError::BadId(_))
            ),
            "{bad}"
        );
        assert!(
            matches!(
                store.delete(Path::new("/p"), bad),
                Err(SessionError::BadId(_))
            ),
            "{bad}"
        );
    }
}

fn session_file(store: &SessionStore, id: &str) -> std::path::PathBuf {
    let dirs: Vec<_> = std::fs::read_dir(store.root()).unwrap().flatten().collect();
    for d in dirs {
        let f = d.path().join(format!("{id}.jsonl"));
        if f.exists() {
            return f;
        }
    }
    panic!("no file for {id}");
}

#[tokio::test(start_paused = true)]
async fn a_torn_last_line_is_skipped_with_a_warning_and_resume_continues() {
    let (_d, store) = store();
    let project = Path::new("/p/zoo");
    let (id, history) = run_session(&store, project, "Greet the walrus", tool_turns()).await;
    let path = session_file(&store, &id);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    f.write_all(br#"{"type":"message","message":{"role":"user","content":[{"type":"te"#)
        .unwrap();
    drop(f);

    let loaded = store.load(project, &id).unwrap();
    assert_eq!(loaded.messages, history);
    assert_eq!(loaded.warnings.len(), 1);
    assert!(
        loaded.warnings[0].contains("skipped"),
        "{}",
        loaded.warnings[0]
    );

    let (resumed, writer) = store.resume(project, &id).unwrap();
    let writer = Arc::new(writer);
    let h = harness(
        config_allowing(&["echo"]),
        vec![ScriptedTurn::text("again")],
    );
    let mut agent = h
        .agent
        .with_history(resumed.messages)
        .with_history_log(writer.clone());
    agent.run("second prompt").await;
    let reloaded = store.load(project, &id).unwrap();
    assert_eq!(reloaded.messages.len(), history.len() + 2);
    assert_eq!(
        reloaded.messages[history.len()],
        Message::user_text("second prompt")
    );
    assert_eq!(
        reloaded.warnings.len(),
        1,
        "only the old torn line is reported"
    );
}

#[tokio::test(start_paused = true)]
async fn resuming_after_a_lost_result_adds_an_interrupted_one() {
    let (_d, store) = store();
    let project = Path::new("/p/zoo");
    let (header, writer) = store.create(project, None, "m", "do two things").unwrap();
    // What a crash between writing the calls and their results leaves behind.
    let call = |id: &str| {
        ContentBlock::ToolCall(
            ToolCall {
                id: id.into(),
                name: "echo".into(),
                input: json!({"text": id}),
                parsed_from_text: false,
            }
            .into(),
        )
    };
    let history = vec![
        Message::user_text("do two things"),
        Message {
            role: Role::Assistant,
            content: vec![call("c1"), call("c2")],
        },
        Message {
            role: Role::User,
            content: vec![ContentBlock::ToolResult(
                paddock_core::protocol::ToolResult {
                    tool_call_id: "c1".into(),
                    content: "c1".into(),
                    is_error: false,
                },
            )],
        },
    ];
    paddock_core::HistoryLog::save(&writer, &history);
    drop(writer);

    let (resumed, writer) = store.resume(project, &header.id).unwrap();
    assert_paired(&resumed.messages);
    assert_eq!(resumed.messages.len(), 3);
    let results: Vec<_> = resumed.messages[2].tool_results().collect();
    assert_eq!(results.len(), 2);
    assert_eq!(results[1].tool_call_id, "c2");
    assert!(results[1].is_error);
    assert_eq!(results[1].content, session::INTERRUPTED_RESULT);
    assert!(resumed.warnings.iter().any(|w| w.contains("interrupted")));
    drop(writer);

    // The repair is on disk: a second load needs none.
    let again = store.load(project, &header.id).unwrap();
    assert_eq!(again.messages, resumed.messages);
    let (_, _w) = store.resume(project, &header.id).unwrap();
    assert_eq!(
        store.load(project, &header.id).unwrap().messages,
        resumed.messages
    );
}

#[test]
fn a_file_that_is_not_a_session_is_a_clear_error() {
    let (_d, store) = store();
    let project = Path::new("/p/zoo");
    let (header, writer) = store.create(project, None, "m", "x").unwrap();
    drop(writer);
    let path = session_file(&store, &header.id);
    std::fs::write(&path, "hello\n").unwrap();
    let err = store.load(project, &header.id).unwrap_err();
    assert!(err.to_string().contains("not a Paddock session"), "{err}");
    assert!(store.list(project).unwrap().is_empty());
}
