use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

use paddock_protocol::{AgentEvent, Message, SessionRecord};

use paddock_core::EventSink;
use paddock_core::HistoryLog;

struct State {
    out: BufWriter<File>,
    /// Messages of the history already on disk.
    written: usize,
    /// The first write error, reported once; later writes are skipped.
    failed: Option<String>,
}

/// Appends a session's records. Use it as the run's [`HistoryLog`] (messages, flushed at each
/// turn boundary) and as an [`EventSink`] (events worth keeping; token deltas are not).
pub struct SessionWriter {
    id: String,
    path: PathBuf,
    state: Mutex<State>,
}

impl SessionWriter {
    pub(super) fn new(id: String, path: PathBuf, file: File, written: usize) -> Self {
        Self {
            id,
            path,
            state: Mutex::new(State {
                out: BufWriter::new(file),
                written,
                failed: None,
            }),
        }
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// The first write error, if writing ever failed (disk full, folder removed).
    pub fn error(&self) -> Option<String> {
        self.lock().failed.clone()
    }

    /// Appends one record without flushing.
    pub(super) fn append(&self, record: &SessionRecord) {
        let mut state = self.lock();
        write_record(&mut state, record);
    }

    /// Flushes buffered records to the file.
    pub fn flush(&self) {
        let mut state = self.lock();
        if state.failed.is_none()
            && let Err(e) = state.out.flush()
        {
            state.failed = Some(e.to_string());
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn write_record(state: &mut State, record: &SessionRecord) {
    if state.failed.is_some() {
        return;
    }
    let result = serde_json::to_string(record)
        .map_err(std::io::Error::other)
        .and_then(|line| {
            state.out.write_all(line.as_bytes())?;
            state.out.write_all(b"\n")
        });
    if let Err(e) = result {
        tracing::warn!("session write failed: {e}");
        state.failed = Some(e.to_string());
    }
}

impl HistoryLog for SessionWriter {
    fn save(&self, messages: &[Message]) {
        let mut state = self.lock();
        let start = state.written.min(messages.len());
        for message in &messages[start..] {
            // The bytes go beside the session before the line that references them.
            if state.failed.is_none()
                && let Err(e) = crate::store::images::save(
                    &crate::store::images::images_dir(&self.path),
                    message,
                )
            {
                tracing::warn!("session image write failed: {e}");
                state.failed = Some(e.to_string());
            }
            write_record(
                &mut state,
                &SessionRecord::Message {
                    message: message.clone(),
                },
            );
        }
        state.written = messages.len();
        if state.failed.is_none()
            && let Err(e) = state.out.flush()
        {
            state.failed = Some(e.to_string());
        }
    }

    /// The `compacted` event went through `emit` first; the file's reader rebuilds the same
    /// shorter history from it, so counting goes on from its length.
    fn compacted(&self, len: usize) {
        self.lock().written = len;
    }
}

/// Events the transcript needs to look the same after a restart. The main agent's deltas
/// and tool calls are already in the messages; a teammate's messages are not stored, so its
/// tool calls are kept as events.
fn worth_keeping(event: &AgentEvent) -> bool {
    match event {
        AgentEvent::Delegated { event, .. } => {
            matches!(**event, AgentEvent::ToolCallStarted { .. }) || worth_keeping(event)
        }
        AgentEvent::TextDelta { .. }
        | AgentEvent::ThinkingDelta { .. }
        | AgentEvent::TurnStarted { .. }
        | AgentEvent::ToolCallStarted { .. } => false,
        _ => true,
    }
}

impl EventSink for SessionWriter {
    fn emit(&self, event: AgentEvent) {
        if worth_keeping(&event) {
            let finished = matches!(event, AgentEvent::RunFinished { .. });
            self.append(&SessionRecord::Event { event });
            if finished {
                self.flush();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_protocol::ToolCall;

    fn nested(event: AgentEvent) -> AgentEvent {
        AgentEvent::Delegated {
            agent: "helper".into(),
            depth: 1,
            call_id: "c1".into(),
            event: Box::new(event),
        }
    }

    #[test]
    fn keeps_what_the_messages_do_not_hold() {
        let call = AgentEvent::ToolCallStarted {
            call: ToolCall {
                id: "t1".into(),
                name: "grep".into(),
                input: serde_json::json!({}),
                parsed_from_text: false,
            }
            .into(),
            summary: String::new(),
        };
        let delta = AgentEvent::TextDelta { text: "x".into() };
        assert!(!worth_keeping(&call));
        assert!(!worth_keeping(&delta));
        assert!(worth_keeping(&nested(call.clone())));
        assert!(worth_keeping(&nested(nested(call))));
        assert!(!worth_keeping(&nested(delta)));
    }
}
