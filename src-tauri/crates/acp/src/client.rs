//! The other direction: an external agent's `session/update`s as Paddock's events (its text,
//! reasoning, tool calls with how they ended, its plan and context), and its permission
//! requests as Paddock tool calls to approve. The agent's file changes are not taken from
//! its word: the host records the workspace before and after each prompt.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use paddock_protocol::{AgentEvent, ContextInfo, Plan, PlanItem, PlanStatus, ToolCall, ToolStatus};
use serde_json::Value;

use crate::updates::MAX_OUTPUT_CHARS;

/// Most characters of an external agent's text kept per update (a runaway agent cannot
/// fill the session file in one line).
pub const MAX_CHUNK_CHARS: usize = 256 * 1024;

/// One call as far as the agent has told it.
struct Call {
    call: Arc<ToolCall>,
    title: String,
    started: Instant,
    done: bool,
    diffs: Vec<Diff>,
    /// What let it run without asking (the user's rule), shown with it.
    why: String,
}

/// A file change an agent says a call makes (ACP's `diff` content): its word, shown with the
/// call; what really changed is recorded by the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diff {
    /// Absolute, as ACP sends it.
    pub path: String,
    /// `None`: a new file.
    pub old: Option<String>,
    pub new: String,
}

/// The diffs in an update's or a permission request's `content`.
pub fn diffs_in(content: &Value) -> Vec<Diff> {
    content
        .as_array()
        .into_iter()
        .flatten()
        .filter(|item| item["type"] == "diff")
        .filter_map(|item| {
            Some(Diff {
                path: item["path"].as_str()?.to_owned(),
                old: item["oldText"].as_str().map(str::to_owned),
                new: item["newText"].as_str()?.to_owned(),
            })
        })
        .collect()
}

/// Turns one prompt's updates into events; keeps the calls between updates.
#[derive(Default)]
pub struct Events {
    calls: HashMap<String, Call>,
    /// The agent's answer so far (what the session keeps as its message).
    pub text: String,
    /// Turns so far: text after a tool call is the model's next turn, as in Paddock's own
    /// runs, so the transcript shows each turn's text with its calls.
    turns: u32,
    call_since_text: bool,
}

impl Events {
    /// The events one `update` (the `update` object of a `session/update`) makes.
    pub fn of(&mut self, update: &Value) -> Vec<AgentEvent> {
        let text = |u: &Value| bounded(u["content"]["text"].as_str().unwrap_or_default());
        let kind = update["sessionUpdate"].as_str().unwrap_or_default();
        let mut events = Vec::new();
        let speaks = matches!(kind, "agent_message_chunk" | "agent_thought_chunk");
        if (speaks && self.call_since_text) || (self.turns == 0 && (speaks || kind == "tool_call"))
        {
            self.turns += 1;
            self.call_since_text = false;
            if !self.text.is_empty() && !self.text.ends_with("\n\n") {
                self.text.push_str("\n\n");
            }
            events.push(AgentEvent::TurnStarted { turn: self.turns });
        }
        events.extend(self.mapped(kind, update, text));
        events
    }

    /// Turns the agent took so far (at least 1 once it said or did anything).
    pub fn turns(&self) -> u32 {
        self.turns
    }

    fn mapped(
        &mut self,
        kind: &str,
        update: &Value,
        text: impl Fn(&Value) -> String,
    ) -> Vec<AgentEvent> {
        match kind {
            "agent_message_chunk" => {
                let t = text(update);
                self.text.push_str(&t);
                vec![AgentEvent::TextDelta { text: t }]
            }
            "agent_thought_chunk" => vec![AgentEvent::ThinkingDelta { text: text(update) }],
            "tool_call" => {
                self.call_since_text = true;
                self.started(update)
            }
            "tool_call_update" => self.updated(update),
            "plan" => vec![AgentEvent::Plan(plan_of(update))],
            "usage_update" => usage_of(update).into_iter().collect(),
            _ => Vec::new(),
        }
    }

    /// Ends the calls the agent never finished (the prompt ended or was cancelled).
    pub fn unfinished(&mut self, status: ToolStatus) -> Vec<AgentEvent> {
        let ids: Vec<String> = self
            .calls
            .iter()
            .filter(|(_, c)| !c.done)
            .map(|(id, _)| id.clone())
            .collect();
        ids.iter()
            .filter_map(|id| self.finish(id, "(the agent did not say how it ended)", status))
            .collect()
    }

    /// The diffs the agent sent for call `id` so far.
    pub fn diffs(&self, id: &str) -> &[Diff] {
        self.calls.get(id).map_or(&[], |c| c.diffs.as_slice())
    }

    /// Says what let call `id` run without asking (kept for when it finishes).
    pub fn set_why(&mut self, id: &str, why: &str) {
        if let Some(call) = self.calls.get_mut(id) {
            call.why = why.to_owned();
        }
    }

    /// The call a permission request is about, as a Paddock call (known or new).
    pub fn call_for(&mut self, tool_call: &Value) -> (Arc<ToolCall>, String) {
        let id = tool_call["toolCallId"]
            .as_str()
            .unwrap_or("call")
            .to_owned();
        if let Some(c) = self.calls.get(&id) {
            return (c.call.clone(), c.title.clone());
        }
        let (call, title) = call_of(tool_call);
        (Arc::new(call), title)
    }

    fn started(&mut self, update: &Value) -> Vec<AgentEvent> {
        let (call, title) = call_of(update);
        let id = call.id.clone();
        let call = Arc::new(call);
        self.calls.insert(
            id.clone(),
            Call {
                call: call.clone(),
                title: title.clone(),
                started: Instant::now(),
                done: false,
                diffs: Vec::new(),
                why: String::new(),
            },
        );
        let mut events = vec![AgentEvent::ToolCallStarted {
            call,
            summary: title,
        }];
        events.extend(self.ended(&id, update));
        events
    }

    fn updated(&mut self, update: &Value) -> Vec<AgentEvent> {
        let id = update["toolCallId"].as_str().unwrap_or_default().to_owned();
        if !self.calls.contains_key(&id) {
            // An update for a call never announced: announce it first.
            return self.started(update);
        }
        if let (Some(call), Some(title)) = (self.calls.get_mut(&id), update["title"].as_str()) {
            call.title = title.to_owned();
        }
        self.ended(&id, update)
    }

    fn ended(&mut self, id: &str, update: &Value) -> Vec<AgentEvent> {
        let diffs = diffs_in(&update["content"]);
        if let (Some(call), false) = (self.calls.get_mut(id), diffs.is_empty()) {
            // The latest word for each path.
            call.diffs
                .retain(|d| !diffs.iter().any(|n| n.path == d.path));
            call.diffs.extend(diffs);
        }
        let status = match update["status"].as_str() {
            Some("completed") => ToolStatus::Ok,
            Some("failed") => ToolStatus::Failed,
            _ => return Vec::new(),
        };
        let output = output_of(update);
        self.finish(id, &output, status).into_iter().collect()
    }

    fn finish(&mut self, id: &str, output: &str, status: ToolStatus) -> Option<AgentEvent> {
        let call = self.calls.get_mut(id)?;
        if call.done {
            return None;
        }
        call.done = true;
        Some(AgentEvent::ToolCallFinished {
            id: id.to_owned(),
            name: call.call.name.clone(),
            summary: call.title.clone(),
            output: output.into(),
            is_error: !status.is_ok(),
            status,
            duration_ms: u64::try_from(call.started.elapsed().as_millis()).unwrap_or(u64::MAX),
            why: call.why.clone(),
            changes: Vec::new(),
        })
    }
}

/// A call as Paddock names it: the agent's tool name when it gives one, else its kind.
fn call_of(update: &Value) -> (ToolCall, String) {
    let name = update["name"]
        .as_str()
        .or_else(|| update["kind"].as_str())
        .unwrap_or("tool");
    let title = update["title"].as_str().unwrap_or(name);
    let call = ToolCall {
        id: update["toolCallId"].as_str().unwrap_or("call").to_owned(),
        name: name.to_owned(),
        input: update.get("rawInput").cloned().unwrap_or(Value::Null),
        parsed_from_text: false,
    };
    (call, bounded(title))
}

/// A finished call's content in words: its text, and each diff as the file it changed.
fn output_of(update: &Value) -> String {
    let mut out = Vec::new();
    for item in update["content"].as_array().into_iter().flatten() {
        match item["type"].as_str() {
            Some("content") => {
                if let Some(t) = item["content"]["text"].as_str() {
                    out.push(t.to_owned());
                }
            }
            Some("diff") => out.push(format!(
                "edited {}",
                item["path"].as_str().unwrap_or("a file")
            )),
            _ => {}
        }
    }
    let text = out.join("\n");
    if text.chars().count() > MAX_OUTPUT_CHARS {
        text.chars().take(MAX_OUTPUT_CHARS).collect()
    } else {
        text
    }
}

fn plan_of(update: &Value) -> Plan {
    let items = update["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| PlanItem {
            content: bounded(e["content"].as_str().unwrap_or_default()),
            status: match e["status"].as_str() {
                Some("completed") => PlanStatus::Completed,
                Some("in_progress") => PlanStatus::InProgress,
                _ => PlanStatus::Pending,
            },
            active_form: None,
        })
        .collect();
    Plan { items }
}

/// A prompt's answer's `usage` (tokens of the whole prompt) as Paddock counts them: input
/// with the cached tokens included.
pub fn answer_usage(answer: &Value) -> paddock_protocol::TokenUsage {
    let n = |k: &str| answer["usage"][k].as_u64().unwrap_or(0);
    let (read, written) = (n("cachedReadTokens"), n("cachedWriteTokens"));
    paddock_protocol::TokenUsage {
        input_tokens: n("inputTokens")
            .saturating_add(read)
            .saturating_add(written),
        output_tokens: n("outputTokens"),
        cache_read_tokens: read,
        cache_write_tokens: written,
    }
}

fn usage_of(update: &Value) -> Option<AgentEvent> {
    let used = u32::try_from(update["used"].as_u64()?).unwrap_or(u32::MAX);
    let size = update["size"].as_u64().and_then(|s| u32::try_from(s).ok());
    Some(AgentEvent::Context(ContextInfo {
        used,
        window: size.filter(|s| *s > 0),
        instructions: 0,
        tools: 0,
        history: used,
    }))
}

fn bounded(text: &str) -> String {
    if text.len() <= MAX_CHUNK_CHARS {
        text.to_owned()
    } else {
        text.chars().take(MAX_CHUNK_CHARS).collect()
    }
}
