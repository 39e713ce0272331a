//! A stored session replayed as `session/update`s (ACP's `session/load`): the prompts as user
//! chunks, the answers and thinking as agent chunks, each tool call with how it ended and
//! what it changed, and the last plan.

use std::collections::HashMap;

use paddock_protocol::{AgentEvent, ContentBlock, FileChange, Message, Role, ToolStatus};
use serde_json::Value;

use crate::updates::{Updates, chunk, plan_update};

/// The updates that retell `messages` (as written), with what `events` recorded about the
/// calls.
pub fn replay(messages: &[Message], events: &[AgentEvent], updates: &Updates) -> Vec<Value> {
    let mut finished: HashMap<&str, (&str, ToolStatus, &[FileChange])> = HashMap::new();
    for event in events {
        if let AgentEvent::ToolCallFinished {
            id,
            summary,
            status,
            changes,
            ..
        } = event
        {
            finished.insert(id, (summary, *status, changes));
        }
    }
    let mut out = Vec::new();
    for message in messages {
        for block in &message.content {
            match (message.role, block) {
                (Role::User, ContentBlock::Text { text }) => {
                    out.push(chunk("user_message_chunk", text));
                }
                (Role::User, ContentBlock::Mention(m)) => {
                    out.push(chunk("user_message_chunk", &format!("@{}", m.path)));
                }
                (Role::Assistant, ContentBlock::Text { text }) => {
                    out.push(chunk("agent_message_chunk", text));
                }
                (Role::Assistant, ContentBlock::Thinking { thinking, .. }) => {
                    out.push(chunk("agent_thought_chunk", thinking));
                }
                (_, ContentBlock::ToolCall(call)) => {
                    let seen = finished.get(call.id.as_str());
                    let summary = seen.map_or("", |s| s.0);
                    out.push(updates.tool_call(call, summary));
                }
                (_, ContentBlock::ToolResult(result)) => {
                    let (status, changes) = match finished.get(result.tool_call_id.as_str()) {
                        Some((_, status, changes)) => (*status, *changes),
                        None if result.is_error => (ToolStatus::Failed, &[][..]),
                        None => (ToolStatus::Ok, &[][..]),
                    };
                    out.push(updates.finished(
                        &result.tool_call_id,
                        &result.content,
                        status,
                        changes,
                    ));
                }
                _ => {}
            }
        }
    }
    if let Some(plan) = events.iter().rev().find_map(|e| match e {
        AgentEvent::Plan(p) => Some(p),
        _ => None,
    }) {
        out.push(plan_update(plan));
    }
    out
}
