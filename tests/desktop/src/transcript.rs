//! A long stored session for the benchmark: written through the kernel's session store, so it
//! is exactly what the app would have saved after a long run.

use std::path::Path;

use paddock_core::events::EventSink;
use paddock_core::runner::HistoryLog;
use paddock_protocol::{
    AgentEvent, ContentBlock, ExitReason, Message, Role, StopReason, TokenUsage, ToolCall,
    ToolResult, ToolStatus,
};
use paddock_session::SessionStore;
use serde_json::json;

use crate::Result;

/// Events of one tool turn: usage, the turn's end, two finished calls.
const EVENTS_PER_TURN: usize = 4;

/// Writes a session of `events` stored events (at least 4) under `data_dir` for `project`;
/// returns its id. Each turn reads and searches a file: two tool cards per turn.
pub fn write_session(data_dir: &Path, project: &Path, events: usize) -> Result<String> {
    let store = SessionStore::new(data_dir.join("sessions"));
    let prompt = "Walk the whole parser and list every place that allocates";
    let (header, writer) =
        store.create(project, Some("openai-compatible"), "fake-model", prompt)?;
    // run_started + turns + the final turn's usage, turn_finished and run_finished.
    let turns = events.saturating_sub(4) / EVENTS_PER_TURN;
    let mut messages = vec![Message::user_text(prompt)];
    let mut total = TokenUsage::default();
    writer.emit(AgentEvent::RunStarted {
        agent: "main".into(),
        model: "fake-model".into(),
        max_turns: 100,
        pricing: None,
    });
    let mut emitted = 1;
    for t in 1..=turns {
        let (read, grep) = (format!("call_{t}_read"), format!("call_{t}_grep"));
        let path = format!("src/parser/part_{t}.rs");
        messages.push(Message {
            role: Role::Assistant,
            content: vec![
                ContentBlock::Text {
                    text: format!("Step {t}: reading `{path}` and looking for `Vec::new`."),
                },
                call(&read, "file_read", json!({"path": path})),
                call(&grep, "grep", json!({"pattern": "Vec::new", "path": path})),
            ],
        });
        let read_out = format!("fn part_{t}() {{\n    let v = Vec::new();\n    v\n}}\n").repeat(3);
        let grep_out = format!("{path}:2:    let v = Vec::new();");
        messages.push(Message {
            role: Role::User,
            content: vec![result(&read, &read_out), result(&grep, &grep_out)],
        });
        let turn = TokenUsage::new(1_200, 80);
        total += turn;
        // The kernel's order: the model call's usage, the turn's end, then the tools.
        writer.emit(AgentEvent::Usage {
            turn,
            total,
            total_cost: None,
            turn_cost: None,
        });
        writer.emit(AgentEvent::TurnFinished {
            turn: u32::try_from(t)?,
            stop_reason: StopReason::ToolUse,
        });
        for (id, name, output) in [(&read, "file_read", read_out), (&grep, "grep", grep_out)] {
            writer.emit(AgentEvent::ToolCallFinished {
                id: id.clone(),
                name: name.into(),
                summary: path.clone(),
                output: output.into(),
                is_error: false,
                status: ToolStatus::Ok,
                duration_ms: 3,
                why: String::new(),
                changes: Vec::new(),
            });
        }
        emitted += EVENTS_PER_TURN;
        if t % 100 == 0 {
            writer.save(&messages);
        }
    }
    messages.push(Message::assistant_text(format!(
        "Found {turns} allocations, one per part; the list is above."
    )));
    writer.save(&messages);
    let last = TokenUsage::new(1_300, 200);
    total += last;
    let final_turn = u32::try_from(turns + 1)?;
    writer.emit(AgentEvent::Usage {
        turn: last,
        total,
        total_cost: None,
        turn_cost: None,
    });
    writer.emit(AgentEvent::TurnFinished {
        turn: final_turn,
        stop_reason: StopReason::EndTurn,
    });
    writer.emit(AgentEvent::RunFinished {
        exit: ExitReason::EndTurn,
        turns: final_turn,
        usage: total,
        cost: None,
    });
    emitted += 3;
    writer.flush();
    if let Some(e) = writer.error() {
        return Err(format!("writing the session failed: {e}").into());
    }
    let loaded = store.load(project, &header.id)?;
    if loaded.events.len() != emitted {
        return Err(format!("wrote {} events, meant {emitted}", loaded.events.len()).into());
    }
    Ok(header.id)
}

fn call(id: &str, name: &str, input: serde_json::Value) -> ContentBlock {
    ContentBlock::ToolCall(
        ToolCall {
            id: id.into(),
            name: name.into(),
            input,
            parsed_from_text: false,
        }
        .into(),
    )
}

fn result(id: &str, content: &str) -> ContentBlock {
    ContentBlock::ToolResult(ToolResult {
        tool_call_id: id.into(),
        content: content.into(),
        is_error: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_has_the_asked_number_of_events() {
        let data = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let id = write_session(data.path(), project.path(), 10_000).unwrap();
        let store = SessionStore::new(data.path().join("sessions"));
        let s = store.load(project.path(), &id).unwrap();
        assert_eq!(s.events.len(), 10_000);
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        assert_eq!(s.messages.len(), 2 * 2_499 + 2);
    }
}
