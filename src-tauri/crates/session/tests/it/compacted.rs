//! A compacted session reads back as the run left it; its last compaction can be undone
//! (the exact earlier history comes back) or its summary edited.

use std::path::Path;
use std::sync::Arc;

use futures_util::stream;
use paddock_core::model::{Model, ModelEvent, ModelRequest, ModelStream};
use paddock_core::protocol::{AgentEvent, StopReason, ToolCall};
use paddock_core::{Agent, Fanout};
use paddock_session::SessionStore;
use serde_json::json;

use paddock_core::testing::*;

/// Calls echo with a long text until the history is long, answers summaries.
struct Long;

impl Model for Long {
    fn stream(&self, request: &ModelRequest<'_>) -> ModelStream {
        let events = if request.tools.is_empty() {
            vec![
                ModelEvent::TextDelta("Echoed many times.".into()),
                ModelEvent::Stop(StopReason::EndTurn),
            ]
        } else if request.messages.len() < 30 {
            vec![
                ModelEvent::ToolCall(ToolCall {
                    id: format!("c{}", request.messages.len()),
                    name: "echo".into(),
                    input: json!({"text": "z".repeat(500)}),
                    parsed_from_text: false,
                }),
                ModelEvent::Stop(StopReason::ToolUse),
            ]
        } else {
            vec![
                ModelEvent::TextDelta("done".into()),
                ModelEvent::Stop(StopReason::EndTurn),
            ]
        };
        Box::pin(stream::iter(events.into_iter().map(Ok)))
    }
}

#[tokio::test(start_paused = true)]
async fn compactions_read_back_and_undo_restores_the_exact_history() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path().join("sessions"));
    let project = Path::new("/p");
    let (header, writer) = store.create(project, None, "m", "echo a lot").unwrap();
    let writer = Arc::new(writer);
    let mut config = config_allowing(&["echo"]);
    config.context_window = Some(3_000);
    config.loop_detection = None;
    let events = paddock_core::CollectSink::new();
    let mut agent = Agent::new(config, Arc::new(Long), registry(&Arc::default()))
        .with_events(Arc::new(Fanout(vec![events.clone(), writer.clone()])))
        .with_history_log(writer.clone());
    agent.run("echo a lot").await;
    let compactions: Vec<_> = events
        .events()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::Compacted(c) => Some(c),
            _ => None,
        })
        .collect();
    assert!(compactions.len() >= 2, "{}", compactions.len());

    let loaded = store.load(project, &header.id).unwrap();
    assert_eq!(
        loaded.history,
        agent.history(),
        "read back as the run left it"
    );
    assert_ne!(
        loaded.history, loaded.messages,
        "the file keeps every message"
    );
    assert_paired(&loaded.history);
    let last = loaded.last_compaction.clone().unwrap();
    assert_eq!(&last, compactions.last().unwrap());

    // Editing the summary changes the history's opening, nothing else.
    store
        .append_event(
            project,
            &header.id,
            AgentEvent::CompactionEdited {
                id: last.id.clone(),
                summary: "My own words about it.".into(),
            },
        )
        .unwrap();
    let edited = store.load(project, &header.id).unwrap();
    assert!(edited.history[0].text().contains("My own words about it."));
    assert!(!edited.history[0].text().contains("Echoed many times."));
    assert_eq!(edited.history[1..], loaded.history[1..]);

    // Undo: the history as it was just before that compaction, plus what came after it.
    store
        .append_event(
            project,
            &header.id,
            AgentEvent::CompactionUndone {
                id: last.id.clone(),
            },
        )
        .unwrap();
    let undone = store.load(project, &header.id).unwrap();
    assert_paired(&undone.history);
    assert!(undone.history.len() > loaded.history.len());
    let tail = &loaded.history[1..];
    assert_eq!(&undone.history[undone.history.len() - tail.len()..], tail);
    assert_eq!(
        undone.last_compaction.as_ref().map(|c| c.id.clone()),
        compactions.iter().rev().nth(1).map(|c| c.id.clone()),
        "the one before is now the latest"
    );

    // The next prompt continues from the undone history.
    let (resumed, writer) = store.resume(project, &header.id).unwrap();
    assert_eq!(resumed.history, undone.history);
    drop(writer);
}
