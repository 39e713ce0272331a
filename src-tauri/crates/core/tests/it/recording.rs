//! The run records the workspace before turns that may change it, and lists its changes.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use paddock_core::protocol::{AgentEvent, ChangeKind, ChangeSummary, CheckpointInfo};
use paddock_core::scripted::ScriptedTurn;
use paddock_core::{RecordError, Recorded, WorkspaceRecorder};
use serde_json::json;

use paddock_core::testing::*;

/// A workspace whose state is a version number; every record "changes" nothing by itself,
/// a mutating fake tool run bumps the version (through the test).
#[derive(Default)]
struct Versions {
    version: AtomicU32,
    records: AtomicU32,
    fail: Mutex<bool>,
}

#[async_trait]
impl WorkspaceRecorder for Versions {
    async fn record(&self) -> Result<Recorded, RecordError> {
        if *self.fail.lock().unwrap() {
            return Err(RecordError("disk full".into()));
        }
        self.records.fetch_add(1, Ordering::SeqCst);
        // Each record after a write sees the next version.
        let v = self.version.fetch_add(1, Ordering::SeqCst);
        Ok(Recorded {
            id: format!("v{v}"),
            workspace: "/ws".into(),
            notices: vec!["big.bin is too large to keep".into()],
        })
    }

    async fn changes(&self, from: &str, to: &str) -> Result<Vec<ChangeSummary>, RecordError> {
        Ok(vec![ChangeSummary {
            path: format!("{from}..{to}"),
            kind: ChangeKind::Modified,
            added: 1,
            removed: 0,
            lines_counted: true,
        }])
    }
}

fn point(checkpoint: &str, turn: u32, messages: u32) -> CheckpointInfo {
    CheckpointInfo {
        checkpoint: checkpoint.into(),
        workspace: "/ws".into(),
        turn,
        messages,
    }
}

fn checkpoints(events: &[AgentEvent]) -> Vec<CheckpointInfo> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::CheckpointSaved(c) => Some(c.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn turns_that_may_write_are_recorded_and_the_run_lists_its_changes() {
    let recorder = Arc::new(Versions::default());
    let mut h = harness(
        config_allowing(&["file_read", "file_write", "bash"]),
        vec![
            // Reads only: nothing recorded.
            ScriptedTurn::tools(&[("file_read", json!({}))]),
            ScriptedTurn::tools(&[("file_write", json!({})), ("file_read", json!({}))]),
            ScriptedTurn::tools(&[("bash", json!({}))]),
            ScriptedTurn::text("done"),
        ],
    );
    h.agent = h.agent.with_recorder(recorder.clone());
    h.agent = h.agent.with_history(vec![
        paddock_core::protocol::Message::user_text("earlier"),
        paddock_core::protocol::Message::assistant_text("ok"),
    ]);
    h.agent.run("go").await;
    let events = h.events.events();
    let saved = checkpoints(&events);
    // History: earlier, ok, prompt(2), t1 assistant(3), results(4), t2 assistant(5),
    // results(6), t3 assistant(7)...
    assert_eq!(
        saved,
        [point("v0", 0, 2), point("v0", 2, 5), point("v1", 3, 7),]
    );
    let changes: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::RunChanges { from, to, files } => {
                Some((from.clone(), to.clone(), files.len()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(changes, [("v0".to_owned(), "v2".to_owned(), 1)]);
    assert_eq!(recorder.records.load(Ordering::SeqCst), 3);
    let notices = count_events(
        &events,
        |e| matches!(e, AgentEvent::Warning { message, .. } if message.contains("too large")),
    );
    assert_eq!(notices, 3, "the recorder's notices reach the user");
    // The changes come before the end of the run.
    let at = |pred: &dyn Fn(&AgentEvent) -> bool| events.iter().position(pred).unwrap();
    assert!(
        at(&|e| matches!(e, AgentEvent::RunChanges { .. }))
            < at(&|e| matches!(e, AgentEvent::RunFinished { .. }))
    );
}

#[tokio::test(start_paused = true)]
async fn read_only_runs_record_nothing_and_a_failed_record_is_a_warning() {
    let recorder = Arc::new(Versions::default());
    let mut h = harness(
        config_allowing(&["file_read"]),
        vec![
            ScriptedTurn::tools(&[("file_read", json!({})), ("file_write", json!({}))]),
            ScriptedTurn::text("done"),
        ],
    );
    h.agent = h.agent.with_recorder(recorder.clone());
    h.agent.run("look").await;
    // file_write is not granted: it cannot change anything.
    assert_eq!(recorder.records.load(Ordering::SeqCst), 0);
    assert!(checkpoints(&h.events.events()).is_empty());

    *recorder.fail.lock().unwrap() = true;
    let mut h = harness(
        config_allowing(&["bash"]),
        vec![
            ScriptedTurn::tools(&[("bash", json!({}))]),
            ScriptedTurn::text("done"),
        ],
    );
    h.agent = h.agent.with_recorder(recorder.clone());
    let r = h.agent.run("go").await;
    assert_eq!(
        r.exit,
        paddock_core::protocol::ExitReason::EndTurn,
        "the run goes on"
    );
    let events = h.events.events();
    assert!(checkpoints(&events).is_empty());
    assert_eq!(
        count_events(
            &events,
            |e| matches!(e, AgentEvent::Warning { message, .. } if message.contains("cannot be rewound") && message.contains("disk full"))
        ),
        1
    );
}
