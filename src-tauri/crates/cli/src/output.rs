//! What a run shows: the answer streamed to stdout and one line per tool call on stderr, or
//! one JSON object per event on stdout (`--json`). Also notes which calls were refused (the
//! call's status says so, teammates' calls included), for the exit code. Everything printed
//! as text is rendered by [`crate::terminal`]: what the model wrote is shown, not obeyed.

use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

use paddock_host::{EventSink, one_line};
use paddock_protocol::{
    AgentEvent, ChangeKind, ChangeSummary, CompactionInfo, CompactionReason, LoopAction,
    NetworkConnection, Plan, PlanStatus, ToolStatus,
};
use serde_json::{Value, json};

use crate::terminal::{Stream, json_text, visible};

/// Longest tool summary on a tool line.
const SUMMARY_CHARS: usize = 80;
/// Longest error excerpt on a tool line.
const ERROR_CHARS: usize = 160;

#[derive(Default)]
struct State {
    /// Calls started and not yet finished: id -> (name, summary).
    open: HashMap<String, (String, String)>,
    /// Refused tool names, in order, repeats kept.
    denied: Vec<String>,
    /// Whether stdout is at the start of a line (text mode).
    at_line_start: bool,
    /// The answer as it streams, rendered for the terminal.
    answer: Stream,
}

/// The event sink that prints a run.
pub struct Printer {
    json: bool,
    state: Mutex<State>,
}

impl Printer {
    pub fn new(json: bool) -> Arc<Self> {
        Arc::new(Self {
            json,
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

    /// Refused calls at any depth: a teammate's refused call is refused too.
    fn note_denial(state: &mut State, event: &AgentEvent) {
        match event {
            AgentEvent::ToolCallFinished { name, status, .. } if status.is_denied() => {
                state.denied.push(name.clone());
            }
            AgentEvent::Delegated { event, .. } => Self::note_denial(state, event),
            _ => {}
        }
    }

    fn print_text(&self, state: &mut State, event: AgentEvent, agent: Option<&str>) {
        match event {
            AgentEvent::TextDelta { text } if agent.is_none() && !text.is_empty() => {
                state.at_line_start = text.ends_with('\n');
                out_exact(&state.answer.push(&text));
            }
            AgentEvent::TurnFinished { .. } if agent.is_none() => end_line(state),
            AgentEvent::ToolCallStarted { call, summary } => {
                state
                    .open
                    .insert(call.id.clone(), (call.name.clone(), summary));
            }
            AgentEvent::ToolCallFinished {
                id,
                name,
                summary,
                output,
                status,
                duration_ms,
                ..
            } => {
                let started = state.open.remove(&id).map(|(_, s)| s);
                let summary = started.unwrap_or(summary);
                end_line(state);
                err(&call_line(
                    agent,
                    &name,
                    &summary,
                    &output,
                    status,
                    duration_ms,
                ));
            }
            // Refused connections are what the user may need to act on (a host to allow);
            // allowed ones are in the call's result and in --json.
            AgentEvent::Connection(c) if !c.allowed => {
                end_line(state);
                err(&refused_line(agent, &c));
            }
            AgentEvent::Warning { message, .. } => {
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
            AgentEvent::Compacted(info) if agent.is_none() => {
                end_line(state);
                err(&compacted_line(&info));
            }
            AgentEvent::RunChanges { files, .. } if agent.is_none() && !files.is_empty() => {
                end_line(state);
                let mut text = format!(
                    "paddock: the run changed {} file{}:",
                    files.len(),
                    plural(files.len())
                );
                for change in &files {
                    text.push_str(&format!("\n  {}", change_line(change)));
                }
                err(&text);
            }
            AgentEvent::Plan(plan) => {
                end_line(state);
                let who = agent.map(|a| format!("[{a}] ")).unwrap_or_default();
                err(&format!("{who}{}", plan_lines(&plan)));
            }
            AgentEvent::Hook(run) => {
                end_line(state);
                let who = agent.map(|a| format!("[{a}] ")).unwrap_or_default();
                err(&format!("{who}{}", hook_line(&run)));
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
        Self::note_denial(&mut state, &event);
        if self.json {
            match serde_json::to_string(&event) {
                Ok(line) => out_exact(&format!("{}\n", json_text(&line))),
                Err(e) => err(&format!(
                    "paddock: warning: an event could not be encoded: {e}"
                )),
            }
        } else {
            self.print_text(&mut state, event, None);
        }
    }
}

/// A finished call as stderr shows it: the tool, what it was given, and how it went.
fn call_line(
    agent: Option<&str>,
    name: &str,
    summary: &str,
    output: &str,
    status: ToolStatus,
    duration_ms: u64,
) -> String {
    let summary = one_line(summary, SUMMARY_CHARS);
    let verdict = if status.is_ok() {
        format!("ok ({duration_ms} ms)")
    } else {
        let word = if status.is_denied() {
            "denied"
        } else {
            "error"
        };
        format!(
            "{word} ({duration_ms} ms): {}",
            one_line(output, ERROR_CHARS)
        )
    };
    let who = agent.map(|a| format!("[{a}] ")).unwrap_or_default();
    let summary = if summary.is_empty() {
        String::new()
    } else {
        format!(" {summary}")
    };
    format!("{who}tool {name}{summary} -> {verdict}")
}

/// A refused connection: the host and why, for the user to act on.
fn refused_line(agent: Option<&str>, c: &NetworkConnection) -> String {
    let who = agent.map(|a| format!("[{a}] ")).unwrap_or_default();
    let target = match (&c.host, c.port) {
        (Some(h), Some(p)) => format!("{h}:{p}"),
        _ => "(no host named)".to_owned(),
    };
    format!("{who}paddock: network: refused {target}: {}", c.why)
}

/// A compaction: why, and the conversation's size before and after.
fn compacted_line(info: &CompactionInfo) -> String {
    format!(
        "paddock: compacted the conversation ({}): about {} tokens, now {}; {} earlier \
         messages summarized",
        match info.reason {
            CompactionReason::Threshold => "the context window was filling up",
            CompactionReason::Overflow => "the model said it no longer fit",
            CompactionReason::Asked => "asked",
        },
        info.before_tokens,
        info.after_tokens,
        info.replaced
    )
}

/// The plan as stderr shows it: a heading with the progress, one line per step.
fn plan_lines(plan: &Plan) -> String {
    let (done, total) = plan.progress();
    if total == 0 {
        return "plan: cleared".to_owned();
    }
    let mut text = format!("plan ({done} of {total} done):");
    for item in &plan.items {
        let (mark, words) = match item.status {
            PlanStatus::Completed => ("[x]", &item.content),
            PlanStatus::InProgress => ("[>]", item.active_form.as_ref().unwrap_or(&item.content)),
            PlanStatus::Pending => ("[ ]", &item.content),
        };
        text.push_str(&format!("\n  {mark} {words}"));
    }
    text
}

fn end_line(state: &mut State) {
    if !state.at_line_start {
        // A `\r` the answer ended with is shown before our line starts.
        out_exact(&format!("{}\n", state.answer.finish()));
        state.at_line_start = true;
    }
}

/// Writes text to stdout, control characters made visible, and flushes; a closed pipe is not
/// worth a panic.
pub fn out(text: &str) {
    out_exact(&visible(text));
}

/// Writes to stdout as is: text already rendered, or JSON through [`json_text`].
pub fn out_exact(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

/// Writes one line to stderr, control characters made visible.
pub fn err(line: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{}", visible(line));
}

/// One JSON line on stdout (the CLI's own records in `--json` mode): the values exact, DEL
/// and C1 escaped as serde_json escapes C0.
pub fn json_line(value: &Value) {
    out_exact(&format!("{}\n", json_text(&value.to_string())));
}

/// The `--json` line that opens a run: where to resume it.
pub fn session_line(id: &str, project: &str, model: &str, resumed: bool) -> Value {
    json!({"type": "session", "id": id, "project": project, "model": model, "resumed": resumed})
}

/// One changed file, as the CLI lists it (a rewind's report, a run's changes).
pub(crate) fn change_line(change: &ChangeSummary) -> String {
    let kind = match change.kind {
        ChangeKind::Created => "created",
        ChangeKind::Modified => "modified",
        ChangeKind::Deleted => "deleted",
    };
    if change.lines_counted {
        format!(
            "{kind:<9} {} (+{} -{})",
            change.path, change.added, change.removed
        )
    } else {
        format!("{kind:<9} {}", change.path)
    }
}

pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// One hook's run: `hook project · pre_tool_use · bash · ./check.sh: refused it (7 ms)`, then
/// what it said.
fn hook_line(run: &paddock_protocol::HookRun) -> String {
    use paddock_protocol::HookOutcome as O;
    let said = match run.outcome {
        O::Continue => "ran",
        O::Allow => "allowed it",
        O::Ask => "asked first",
        O::Deny => "refused it",
        O::Rewrote => "rewrote the input",
        O::Context => "added context",
        O::GoOn => "asked the agent to go on",
        O::Failed => "failed",
    };
    let mut line = format!(
        "paddock: hook {}: {said} ({} ms)",
        run.hook, run.duration_ms
    );
    if let Some(message) = &run.message {
        line.push_str(&format!("\n  {}", message.replace('\n', "\n  ")));
    }
    line
}
