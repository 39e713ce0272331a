//! What a run shows: the answer streamed to stdout and one line per tool call on stderr, or
//! one JSON object per event on stdout (`--json`). Also notes which calls the grants refused,
//! for the exit code.

use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

use paddock_kernel::{AskPolicy, EventSink, Gate, ResolvedTools, ToolRegistry};
use paddock_protocol::{AgentEvent, LoopAction, ToolCall};
use serde_json::{Value, json};

/// Longest tool summary on a tool line.
const SUMMARY_CHARS: usize = 80;
/// Longest error excerpt on a tool line.
const ERROR_CHARS: usize = 160;

/// Which calls the run's grants refuse, decided the way the executor decides.
pub struct Gatekeeper {
    pub tools: ResolvedTools,
    pub registry: Arc<ToolRegistry>,
    pub policy: AskPolicy,
}

impl Gatekeeper {
    fn refuses(&self, name: &str) -> bool {
        match self.tools.check(name, &self.registry) {
            Gate::NotGranted => true,
            Gate::Ask => self.policy == AskPolicy::HeadlessDeny,
            Gate::Allow | Gate::Unknown => false,
        }
    }
}

#[derive(Default)]
struct State {
    /// Calls started and not yet finished: id -> (name, summary).
    open: HashMap<String, (String, String)>,
    /// Refused tool names, in order, repeats kept.
    denied: Vec<String>,
    /// Whether stdout is at the start of a line (text mode).
    at_line_start: bool,
}

/// The event sink that prints a run.
pub struct Printer {
    json: bool,
    gate: Gatekeeper,
    state: Mutex<State>,
}

impl Printer {
    pub fn new(json: bool, gate: Gatekeeper) -> Arc<Self> {
        Arc::new(Self {
            json,
            gate,
            state: Mutex::new(State {
                at_line_start: true,
                ..State::default()
            }),
        })
    }

    /// Tool names whose calls the grants refused during the run.
    pub fn denied(&self) -> Vec<String> {
        self.lock().denied.clone()
    }

    /// Ends the answer with a newline, so what follows starts on a line of its own.
    pub fn finish_text(&self) {
        let mut state = self.lock();
        end_line(&mut state);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn note_denial(&self, state: &mut State, event: &AgentEvent) {
        if let AgentEvent::ToolCallStarted { call } = event {
            if self.gate.refuses(&call.name) {
                state.denied.push(call.name.clone());
            }
        }
    }

    fn print_text(&self, state: &mut State, event: AgentEvent, agent: Option<&str>) {
        match event {
            AgentEvent::TextDelta { text } if agent.is_none() && !text.is_empty() => {
                state.at_line_start = text.ends_with('\n');
                out(&text);
            }
            AgentEvent::TurnFinished { .. } if agent.is_none() => end_line(state),
            AgentEvent::ToolCallStarted { call } => {
                let summary = summarize(&call);
                state.open.insert(call.id, (call.name, summary));
            }
            AgentEvent::ToolCallFinished {
                id,
                name,
                output,
                is_error,
                duration_ms,
            } => {
                let summary = state.open.remove(&id).map(|(_, s)| s).unwrap_or_default();
                let verdict = if !is_error {
                    format!("ok ({duration_ms} ms)")
                } else {
                    let word = if agent.is_none() && self.gate.refuses(&name) {
                        "denied"
                    } else {
                        "error"
                    };
                    format!(
                        "{word} ({duration_ms} ms): {}",
                        one_line(&output, ERROR_CHARS)
                    )
                };
                let who = agent.map(|a| format!("[{a}] ")).unwrap_or_default();
                let summary = if summary.is_empty() {
                    String::new()
                } else {
                    format!(" {summary}")
                };
                end_line(state);
                err(&format!("{who}tool {name}{summary} -> {verdict}"));
            }
            AgentEvent::Warning { message } => {
                end_line(state);
                err(&format!("paddock: warning: {message}"));
            }
            AgentEvent::Error { message, .. } => {
                end_line(state);
                err(&format!("paddock: model error: {message}"));
            }
            AgentEvent::LoopDetected { detail, action, .. } => {
                end_line(state);
                let what = match action {
                    LoopAction::Warned => "warned the model",
                    LoopAction::Terminated => "stopped the run",
                };
                err(&format!("paddock: loop detected ({detail}); {what}"));
            }
            AgentEvent::Delegated {
                agent: a, event, ..
            } => {
                self.print_text(state, *event, Some(&a));
            }
            _ => {}
        }
    }
}

impl EventSink for Printer {
    fn emit(&self, event: AgentEvent) {
        let mut state = self.lock();
        self.note_denial(&mut state, &event);
        if self.json {
            match serde_json::to_string(&event) {
                Ok(line) => out(&format!("{line}\n")),
                Err(e) => err(&format!(
                    "paddock: warning: an event could not be encoded: {e}"
                )),
            }
        } else {
            self.print_text(&mut state, event, None);
        }
    }
}

fn end_line(state: &mut State) {
    if !state.at_line_start {
        out("\n");
        state.at_line_start = true;
    }
}

/// Writes to stdout and flushes; a closed pipe is not worth a panic.
pub fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

/// Writes one line to stderr.
pub fn err(line: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{line}");
}

/// One JSON line on stdout (the CLI's own records in `--json` mode).
pub fn json_line(value: &Value) {
    out(&format!("{value}\n"));
}

/// The `--json` line that opens a run: where to resume it.
pub fn session_line(id: &str, project: &str, model: &str, resumed: bool) -> Value {
    json!({"type": "session", "id": id, "project": project, "model": model, "resumed": resumed})
}

/// A short description of a call's input: the path, pattern or command when there is one.
pub fn summarize(call: &ToolCall) -> String {
    let input = &call.input;
    let field = |k: &str| input.get(k).and_then(Value::as_str);
    let text = match call.name.as_str() {
        "grep" | "glob" => match (field("pattern"), field("path")) {
            (Some(p), Some(dir)) => format!("{p:?} in {dir}"),
            (Some(p), None) => format!("{p:?}"),
            _ => input.to_string(),
        },
        "delegate_to_agent" => match (field("agent"), field("task")) {
            (Some(a), Some(t)) => format!("{a}: {t}"),
            _ => input.to_string(),
        },
        _ => ["path", "command", "pattern", "url", "query"]
            .iter()
            .find_map(|k| field(k).map(str::to_owned))
            .unwrap_or_else(|| input.to_string()),
    };
    let text = if text == "{}" || text == "null" {
        String::new()
    } else {
        text
    };
    one_line(&text, SUMMARY_CHARS)
}

/// The text on one line, cut to `max` characters with an ellipsis.
fn one_line(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        flat
    } else {
        let mut cut: String = flat.chars().take(max.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, input: Value) -> ToolCall {
        ToolCall {
            id: "c".into(),
            name: name.into(),
            input,
            parsed_from_text: false,
        }
    }

    #[test]
    fn summaries_pick_the_telling_field() {
        assert_eq!(
            summarize(&call(
                "file_write",
                json!({"path": "a.txt", "content": "x"})
            )),
            "a.txt"
        );
        assert_eq!(
            summarize(&call("bash", json!({"command": "ls\n  -la"}))),
            "ls -la"
        );
        assert_eq!(
            summarize(&call("grep", json!({"pattern": "TODO", "path": "src"}))),
            "\"TODO\" in src"
        );
        assert_eq!(summarize(&call("mcp__x__y", json!({}))), "");
        let long = summarize(&call("mcp__x__y", json!({"a": "b".repeat(200)})));
        assert_eq!(long.chars().count(), SUMMARY_CHARS);
        assert!(long.ends_with('…'));
    }
}
