//! The fast reading of session lines (`parse_record`) against serde's general one: the same
//! record or the same error for every line, written by the store or not.

use paddock_protocol::{
    AgentEvent, ContentBlock, Message, Role, SessionRecord, StopReason, ToolCall, ToolResult,
    ToolStatus,
};
use paddock_session::parse_record;
use serde_json::json;

fn general(line: &str) -> String {
    format!("{:?}", serde_json::from_str::<SessionRecord>(line))
}

fn fast(line: &str) -> String {
    format!("{:?}", parse_record(line))
}

fn written() -> Vec<String> {
    let call = ToolCall {
        id: "c1".into(),
        name: "bash".into(),
        input: json!({"command": "echo '}' \"x\" \\ done", "n": [1, {"a": null}]}),
        parsed_from_text: true,
    };
    let records = [
        SessionRecord::Message {
            message: Message::user_text("Fix the bug } in \"main.rs\" — ünïcødé 🦀\n"),
        },
        SessionRecord::Message {
            message: Message {
                role: Role::Assistant,
                content: vec![
                    ContentBlock::Text { text: "}".into() },
                    ContentBlock::ToolCall(std::sync::Arc::new(call)),
                ],
            },
        },
        SessionRecord::Message {
            message: Message {
                role: Role::User,
                content: vec![ContentBlock::ToolResult(ToolResult {
                    tool_call_id: "c1".into(),
                    content: "line\n}\n".into(),
                    is_error: true,
                })],
            },
        },
        SessionRecord::Event {
            event: AgentEvent::TurnFinished {
                turn: 3,
                stop_reason: StopReason::ToolUse,
            },
        },
        SessionRecord::Event {
            event: AgentEvent::ToolCallFinished {
                id: "c1".into(),
                name: "bash".into(),
                summary: "echo }".into(),
                output: "}}}".into(),
                is_error: false,
                status: ToolStatus::Ok,
                duration_ms: 12,
                why: String::new(),
                changes: Vec::new(),
            },
        },
        SessionRecord::Event {
            event: AgentEvent::Delegated {
                agent: "helper".into(),
                depth: 1,
                call_id: "c1".into(),
                event: Box::new(AgentEvent::TextDelta {
                    text: "{\"type\":\"event\"}".into(),
                }),
            },
        },
    ];
    records
        .iter()
        .map(|r| serde_json::to_string(r).unwrap())
        .collect()
}

#[test]
fn every_line_reads_as_serde_reads_it() {
    let mut lines = written();
    for line in written() {
        // What the store writes, then shapes it does not write.
        lines.push(format!("{line}  \r"));
        lines.push(line.replacen("{\"type\"", "{ \"type\"", 1));
        lines.push(format!("{}, \"extra\": 1}}", &line[..line.len() - 1]));
        lines.push(format!("{line}}}"));
        lines.push(format!("{line} x"));
        lines.push(line.replacen("\"type\":\"event\"", "\"type\":\"message\"", 1));
        lines.push(line.replacen("\"type\":\"message\"", "\"type\":\"event\"", 1));
        for cut in 0..line.len() {
            if line.is_char_boundary(cut) {
                lines.push(line[..cut].to_owned());
            }
        }
    }
    lines.push(r#"{"event":{"type":"turn_started","turn":1},"type":"event"}"#.into());
    lines.push(r#"{"type":"event","event":{"type":"turn_started","turn":1},"event":{}}"#.into());
    lines.push(r#"{"type":"event","event":{"type":"turn_started","turn":1}}"#.into());
    lines.push(r#"{"type":"event","event":{"type":"nope"}}"#.into());
    lines.push(r#"{"type":"event","event":}"#.into());
    lines.push(String::new());
    let mut fast_reads = 0;
    for line in &lines {
        assert_eq!(fast(line), general(line), "{line}");
        if line.starts_with("{\"type\":\"") && parse_record(line).is_ok() {
            fast_reads += 1;
        }
    }
    assert!(fast_reads >= 6, "the store's own lines read");
}
