//! Notices a model repeating itself: the same tool calls (same names, same inputs, in any
//! order, keys in any order) or the same text, turn after turn.

use std::collections::VecDeque;

use paddock_protocol::{LoopKind, Message, ToolCall};
use serde_json::Value;

/// Identical turns in a row that count as a loop.
pub const DEFAULT_MAX_REPETITIONS: u32 = 3;
/// Signatures remembered per kind.
pub const DEFAULT_WINDOW: usize = 4;

/// What to do when a loop is seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LoopPolicy {
    /// Add a "you seem stuck" message; stop on the next detection. A clean turn forgives.
    #[default]
    Warn,
    Terminate,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoopConfig {
    pub max_repetitions: u32,
    pub window: usize,
    pub policy: LoopPolicy,
}

impl Default for LoopConfig {
    fn default() -> Self {
        Self {
            max_repetitions: DEFAULT_MAX_REPETITIONS,
            window: DEFAULT_WINDOW,
            policy: LoopPolicy::Warn,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detection {
    pub kind: LoopKind,
    pub repetitions: u32,
    pub detail: String,
}

/// Sliding windows of tool and text signatures, tracked separately.
#[derive(Debug, Clone)]
pub struct LoopDetector {
    max_repetitions: u32,
    window: usize,
    tools: VecDeque<String>,
    texts: VecDeque<String>,
}

impl LoopDetector {
    pub fn new(config: &LoopConfig) -> Self {
        let max_repetitions = config.max_repetitions.max(2);
        Self {
            max_repetitions,
            // The window must hold a full run of repetitions, or nothing is ever detected.
            window: config
                .window
                .max(usize::try_from(max_repetitions).unwrap_or(usize::MAX)),
            tools: VecDeque::new(),
            texts: VecDeque::new(),
        }
    }

    /// Feeds the assistant turns already in a conversation, so loops across prompts count.
    pub fn replay(&mut self, history: &[Message]) {
        for msg in history {
            if msg.role == paddock_protocol::Role::Assistant {
                let calls: Vec<ToolCall> = msg.tool_calls().cloned().collect();
                let _ = self.record_turn(&msg.text(), &calls);
            }
        }
    }

    /// Records one turn; returns a detection when either kind repeated enough.
    pub fn record_turn(&mut self, text: &str, calls: &[ToolCall]) -> Option<Detection> {
        let tool_hit = if calls.is_empty() {
            None
        } else {
            let sig = tool_signature(calls);
            let count = push_and_count(&mut self.tools, sig, self.window);
            (count >= self.max_repetitions).then(|| {
                let mut names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
                names.sort_unstable();
                Detection {
                    kind: LoopKind::ToolRepetition,
                    repetitions: count,
                    detail: format!(
                        "the same call to {} with identical input was made {count} times in a row",
                        names.join(", ")
                    ),
                }
            })
        };
        let normalized = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let text_hit = if normalized.is_empty() {
            None
        } else {
            let count = push_and_count(&mut self.texts, normalized, self.window);
            (count >= self.max_repetitions).then(|| Detection {
                kind: LoopKind::TextRepetition,
                repetitions: count,
                detail: format!("the same text was produced {count} times in a row"),
            })
        };
        tool_hit.or(text_hit)
    }
}

fn push_and_count(buf: &mut VecDeque<String>, sig: String, window: usize) -> u32 {
    buf.push_back(sig);
    while buf.len() > window {
        buf.pop_front();
    }
    let Some(last) = buf.back() else { return 0 };
    let n = buf.iter().rev().take_while(|s| *s == last).count();
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Names plus canonical inputs, sorted: call order and key order do not matter, array
/// order does.
pub fn tool_signature(calls: &[ToolCall]) -> String {
    let mut items: Vec<String> = calls
        .iter()
        .map(|c| format!("{}\u{0}{}", c.name, canonical_json(&c.input)))
        .collect();
    items.sort_unstable();
    items.join("\u{1}")
}

/// JSON with object keys sorted at every depth.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_unstable();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                if let Some(v) = map.get(k) {
                    write_canonical(v, out);
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(v, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}
