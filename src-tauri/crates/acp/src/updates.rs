//! Paddock's run events as ACP `session/update` payloads (the `update` object): text and
//! thinking as chunks, tool calls with their status, diffs and output, the plan, and usage
//! with the session's cost.

use std::path::{Path, PathBuf};

use paddock_protocol::{
    AgentEvent, ChangeKind, ContextInfo, Cost, DiffBody, FileChange, LineOp, Plan, PlanStatus,
    ToolCall, ToolStatus,
};
use serde_json::{Value, json};

/// Most characters of a tool's output shown to the client (the model sees it all).
pub const MAX_OUTPUT_CHARS: usize = 32 * 1024;

/// Turns one run's events into updates; keeps what usage needs between events.
pub struct Updates {
    workspace: PathBuf,
    /// The last `context` event: how full the window is.
    context: Option<ContextInfo>,
    /// What earlier runs of the session cost, in dollars (`None`: not all known).
    spent_before: Option<f64>,
    /// This run's cost so far.
    run_cost: Option<Cost>,
}

impl Updates {
    /// `workspace` makes the tools' relative paths absolute, as ACP wants them;
    /// `spent_before` is what the session's earlier runs cost (`None` when unknown).
    pub fn new(workspace: &Path, spent_before: Option<f64>) -> Self {
        Self {
            workspace: workspace.to_path_buf(),
            context: None,
            spent_before,
            run_cost: None,
        }
    }

    /// What the session has cost once this run ends, when every price is known.
    pub fn session_cost(&self) -> Option<f64> {
        match self.run_cost {
            Some(c) if c.complete => self.spent_before.map(|s| s + c.usd),
            Some(_) => None,
            None => self.spent_before,
        }
    }

    /// The updates `event` makes (often none).
    pub fn of(&mut self, event: &AgentEvent) -> Vec<Value> {
        match event {
            AgentEvent::TextDelta { text } => vec![chunk("agent_message_chunk", text)],
            AgentEvent::ThinkingDelta { text } => vec![chunk("agent_thought_chunk", text)],
            AgentEvent::ToolCallStarted { call, summary } => {
                vec![self.tool_call(call, summary)]
            }
            AgentEvent::ToolCallFinished {
                id,
                output,
                status,
                changes,
                ..
            } => vec![self.finished(id, output, *status, changes)],
            AgentEvent::Plan(plan) => vec![plan_update(plan)],
            AgentEvent::Warning { message, retry } if retry.is_none() => {
                vec![note(&format!("warning: {message}"))]
            }
            AgentEvent::LoopDetected { detail, .. } => vec![note(detail)],
            AgentEvent::Compacted(info) => vec![note(&format!(
                "the conversation's start was replaced by a summary ({} messages)",
                info.replaced
            ))],
            AgentEvent::Context(info) => {
                self.context = Some(*info);
                self.usage().into_iter().collect()
            }
            AgentEvent::Usage { total_cost, .. } => {
                self.run_cost = *total_cost;
                self.usage().into_iter().collect()
            }
            _ => Vec::new(),
        }
    }

    /// A call as it starts: pending until it runs or is refused.
    pub fn tool_call(&self, call: &ToolCall, summary: &str) -> Value {
        let mut update = json!({
            "sessionUpdate": "tool_call",
            "toolCallId": call.id,
            "title": title(&call.name, summary),
            "kind": kind(&call.name),
            "status": "pending",
            "rawInput": call.input,
        });
        let locations = self.locations(call);
        if !locations.is_empty()
            && let Some(o) = update.as_object_mut()
        {
            o.insert("locations".into(), Value::Array(locations));
        }
        update
    }

    /// A call's end: its status, the diffs of what it changed, and its output.
    pub fn finished(
        &self,
        id: &str,
        output: &str,
        status: ToolStatus,
        changes: &[FileChange],
    ) -> Value {
        let mut content: Vec<Value> = changes.iter().flat_map(|c| self.diffs(c)).collect();
        if !output.is_empty() {
            content.push(text_content(&bounded(output)));
        }
        json!({
            "sessionUpdate": "tool_call_update",
            "toolCallId": id,
            "status": if status.is_ok() { "completed" } else { "failed" },
            "content": content,
        })
    }

    /// The path a file tool names, absolute (the client opens it).
    fn locations(&self, call: &ToolCall) -> Vec<Value> {
        ["path", "file_path"]
            .iter()
            .find_map(|k| call.input.get(*k).and_then(Value::as_str))
            .map(|p| vec![json!({"path": self.absolute(p)})])
            .unwrap_or_default()
    }

    fn absolute(&self, rel: &str) -> String {
        self.workspace.join(rel).to_string_lossy().into_owned()
    }

    /// One ACP diff per hunk: the lines around each change, before and after.
    fn diffs(&self, change: &FileChange) -> Vec<Value> {
        let path = self.absolute(&change.path);
        let DiffBody::Text { hunks } = &change.diff else {
            return vec![text_content(&format!(
                "{} {}",
                match change.kind {
                    ChangeKind::Created => "created",
                    ChangeKind::Modified => "changed",
                    ChangeKind::Deleted => "deleted",
                },
                change.path
            ))];
        };
        hunks
            .iter()
            .map(|h| {
                let side = |skip: LineOp| {
                    let lines: Vec<&str> = h
                        .lines
                        .iter()
                        .filter(|l| l.op != skip)
                        .map(|l| l.text.as_str())
                        .collect();
                    lines.join("\n")
                };
                let old = if change.kind == ChangeKind::Created {
                    Value::Null
                } else {
                    Value::String(side(LineOp::Added))
                };
                json!({"type": "diff", "path": path, "oldText": old, "newText": side(LineOp::Removed)})
            })
            .collect()
    }

    fn usage(&self) -> Option<Value> {
        let context = self.context.as_ref()?;
        let size = context.window?;
        let mut update = json!({
            "sessionUpdate": "usage_update",
            "used": context.used,
            "size": size,
        });
        if let (Some(usd), Some(o)) = (self.session_cost(), update.as_object_mut()) {
            o.insert("cost".into(), json!({"amount": usd, "currency": "USD"}));
        }
        Some(update)
    }
}

/// A text chunk of the given kind (`agent_message_chunk`, `user_message_chunk`, ...).
pub fn chunk(kind: &str, text: &str) -> Value {
    json!({"sessionUpdate": kind, "content": {"type": "text", "text": text}})
}

/// Something Paddock itself says to the user, on a line of its own in the agent's message.
pub fn note(text: &str) -> Value {
    chunk("agent_message_chunk", &format!("\n\n_Paddock: {text}_\n\n"))
}

pub fn plan_update(plan: &Plan) -> Value {
    let entries: Vec<Value> = plan
        .items
        .iter()
        .map(|i| {
            json!({
                "content": i.content,
                "priority": "medium",
                "status": match i.status {
                    PlanStatus::Pending => "pending",
                    PlanStatus::InProgress => "in_progress",
                    PlanStatus::Completed => "completed",
                },
            })
        })
        .collect();
    json!({"sessionUpdate": "plan", "entries": entries})
}

fn text_content(text: &str) -> Value {
    json!({"type": "content", "content": {"type": "text", "text": text}})
}

fn bounded(text: &str) -> String {
    if text.chars().count() <= MAX_OUTPUT_CHARS {
        return text.to_owned();
    }
    let kept: String = text.chars().take(MAX_OUTPUT_CHARS).collect();
    format!("{kept}\n[… output cut for the editor; the model saw all of it]")
}

/// What the client shows for a call: the tool and what it acts on.
pub fn title(name: &str, summary: &str) -> String {
    if summary.is_empty() {
        name.to_owned()
    } else {
        format!("{name} {summary}")
    }
}

/// ACP's kind of a Paddock tool (the client picks an icon by it).
pub fn kind(tool: &str) -> &'static str {
    match tool {
        "file_read" => "read",
        "file_write" | "file_edit" => "edit",
        "grep" | "glob" => "search",
        "bash" => "execute",
        "web_fetch" => "fetch",
        "todo_write" => "think",
        _ => "other",
    }
}
