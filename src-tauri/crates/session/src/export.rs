use paddock_protocol::{AgentEvent, ContentBlock, Role};
use serde_json::{Value, json};

use crate::LoadedSession;

/// The whole session as one JSON document: header, messages, events.
pub fn to_json(session: &LoadedSession) -> Value {
    json!({
        "header": session.header,
        "messages": session.messages,
        "events": session.events,
    })
}

/// A readable transcript: prompts, answers, tool calls with their input and output.
pub fn to_markdown(session: &LoadedSession) -> String {
    let h = &session.header;
    let mut out = format!(
        "# {}\n\n- project: `{}`\n- model: {}{}\n- started: {}\n- session: {}\n",
        h.title,
        h.project,
        h.model,
        h.provider
            .as_deref()
            .map(|p| format!(" ({p})"))
            .unwrap_or_default(),
        h.created,
        h.id
    );
    for message in &session.messages {
        for block in &message.content {
            match (message.role, block) {
                (Role::User, ContentBlock::Text { text }) => {
                    out.push_str(&format!("\n## You\n\n{}\n", text.trim_end()));
                }
                (Role::Assistant, ContentBlock::Text { text }) if !text.trim().is_empty() => {
                    out.push_str(&format!("\n## Agent\n\n{}\n", text.trim_end()));
                }
                (_, ContentBlock::ToolCall(call)) => {
                    let input = serde_json::to_string_pretty(&call.input)
                        .unwrap_or_else(|_| call.input.to_string());
                    let origin = if call.parsed_from_text {
                        " (parsed from text)"
                    } else {
                        ""
                    };
                    out.push_str(&format!(
                        "\n**Tool call** `{}`{origin}\n\n{}\n",
                        call.name,
                        fenced("json", &input)
                    ));
                }
                (_, ContentBlock::ToolResult(result)) => {
                    let label = if result.is_error {
                        "**Result (error)**"
                    } else {
                        "**Result**"
                    };
                    out.push_str(&format!("\n{label}\n\n{}\n", fenced("", &result.content)));
                }
                _ => {}
            }
        }
    }
    let finished: Vec<String> = session
        .events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::RunFinished { exit, turns, usage } => Some(format!(
                "- {} after {turns} turn(s), {} tokens in, {} out",
                exit.as_str(),
                usage.input_tokens,
                usage.output_tokens
            )),
            _ => None,
        })
        .collect();
    if !finished.is_empty() {
        out.push_str("\n---\n\nRuns:\n\n");
        out.push_str(&finished.join("\n"));
        out.push('\n');
    }
    out
}

/// A code fence long enough that the content cannot close it.
fn fenced(lang: &str, content: &str) -> String {
    let mut ticks = 3;
    while content.contains(&"`".repeat(ticks)) {
        ticks += 1;
    }
    let fence = "`".repeat(ticks);
    format!("{fence}{lang}\n{}\n{fence}", content.trim_end())
}
