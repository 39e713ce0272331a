//! "Can this model call tools here?": one short request offering one harmless tool, and
//! a report of how the call came back (natively, as text the fallback reader takes, or
//! not at all), whether it streamed, how fast, the model's context window, and what to
//! change when it did not work.

mod server;

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use paddock_core::{Model, ModelError, ModelEvent, ModelRequest};
use paddock_protocol::{ErrorKind, Message, ToolCall, ToolSpec};
use serde_json::json;

use crate::provider::Provider;
use crate::window::ContextWindow;

/// The longest the probe's model call may take, first byte to last.
pub const TOOL_PROBE_TIMEOUT: Duration = Duration::from_secs(60);

/// The tool offered: harmless, no arguments, and never run (the probe stops at the call).
pub const PROBE_TOOL: &str = "get_time";

const PROBE_SYSTEM: &str = "You are checking that tool calls work. When a tool can answer \
                            the user, call it instead of answering in words.";
const PROBE_PROMPT: &str = "What time is it? Call the get_time tool to find out.";
/// Room for a reasoning model to think before it calls.
const PROBE_MAX_TOKENS: u32 = 512;
/// How much of a wordy answer the report quotes.
const QUOTE_CHARS: usize = 160;

/// How a tool call came back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolCallMode {
    /// In the API's own tool-call fields.
    Native,
    /// Written in the text, and read by Paddock's fallback reader.
    TextFallback,
    /// The tools were described in the prompt (the server refused the `tools` parameter,
    /// or the settings say so) and the call read from the text.
    Prompted,
    /// Not at all.
    None,
}

/// What [`Provider::probe_tools`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolProbe {
    pub mode: ToolCallMode,
    /// Whether calls with tools stream (false: the server refused, and is asked unstreamed).
    pub streaming: bool,
    /// From sending the request to the first text, reasoning or call.
    pub first_token_ms: Option<u64>,
    pub total_ms: u64,
    pub context_window: ContextWindow,
    /// What to change, when calls did not come back natively and streamed.
    pub advice: Vec<String>,
    /// One line saying what happened.
    pub detail: String,
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// What the probe's model call produced.
#[derive(Default)]
struct Observed {
    calls: Vec<ToolCall>,
    text: String,
    first: Option<Duration>,
}

impl Provider {
    /// Checks that `model` calls tools on this server: one short request (a `get_time`
    /// tool without arguments and a prompt asking to call it; the tool choice left to the
    /// model, as in every run), bounded by [`TOOL_PROBE_TIMEOUT`], while the server kind
    /// and the context window are asked for alongside (each side request bounded by
    /// [`crate::PROBE_TIMEOUT`]). Fails only when the model call does (unreachable,
    /// refused, too slow).
    pub async fn probe_tools(&self, model: &str) -> Result<ToolProbe, ModelError> {
        let started = Instant::now();
        let (observed, server, window) = tokio::join!(
            self.probe_call(model, started),
            server::detect(self.transport(), self.kind(), model),
            self.context_window(model),
        );
        let observed = observed?;
        let total_ms = millis(started.elapsed());
        let native = observed.calls.iter().find(|c| !c.parsed_from_text);
        let from_text = observed.calls.iter().find(|c| c.parsed_from_text);
        let prompted = self.prompts_tools();
        let (mode, call) = match (native, from_text) {
            (Some(c), _) => (ToolCallMode::Native, Some(c)),
            (None, Some(c)) if prompted => (ToolCallMode::Prompted, Some(c)),
            (None, Some(c)) => (ToolCallMode::TextFallback, Some(c)),
            (None, None) => (ToolCallMode::None, None),
        };
        if mode == ToolCallMode::TextFallback {
            self.tool_mode.prefer_prompted(
                "the server did not parse the model's tool call (it came back as text)",
            );
        }
        let streaming = self.streams_tool_calls();
        let first_token_ms = observed.first.map(millis);
        let how = format!(
            "{}; first output after {}, {total_ms} ms in all; {}",
            if streaming {
                "streamed"
            } else {
                "not streamed"
            },
            first_token_ms.map_or_else(|| "none".to_owned(), |ms| format!("{ms} ms")),
            server.label()
        );
        let detail = match call {
            Some(c) => format!(
                "{} call of {} with {} ({how})",
                match mode {
                    ToolCallMode::Native => "a native",
                    ToolCallMode::Prompted => "with the tools described in the prompt, a text",
                    _ => "a text",
                },
                c.name,
                c.input
            ),
            None if observed.text.trim().is_empty() => format!("no tool call and no text ({how})"),
            None => format!(
                "no tool call; the model answered {:?} ({how})",
                quote(observed.text.trim())
            ),
        };
        Ok(ToolProbe {
            mode,
            streaming,
            first_token_ms,
            total_ms,
            context_window: window,
            advice: server::advice(
                server,
                mode,
                streaming,
                prompted.then(|| self.tools_refusal()),
            ),
            detail,
        })
    }

    async fn probe_call(&self, model: &str, started: Instant) -> Result<Observed, ModelError> {
        let tools = [ToolSpec {
            name: PROBE_TOOL.into(),
            description: "Returns the current date and time. Takes no arguments.".into(),
            input_schema: json!({"type": "object", "properties": {}}),
        }];
        let messages = [Message::user_text(PROBE_PROMPT)];
        let request = ModelRequest {
            model,
            system: Some(PROBE_SYSTEM),
            messages: &messages,
            tools: &tools,
            max_output_tokens: Some(PROBE_MAX_TOKENS),
        };
        let mut stream = self.stream(&request);
        let mut observed = Observed::default();
        let read = async {
            while let Some(event) = stream.next().await {
                let event = event?;
                let output = matches!(
                    event,
                    ModelEvent::TextDelta(_)
                        | ModelEvent::ThinkingDelta(_)
                        | ModelEvent::RedactedThinking(_)
                        | ModelEvent::ToolCall(_)
                );
                if output && observed.first.is_none() {
                    observed.first = Some(started.elapsed());
                }
                match event {
                    ModelEvent::TextDelta(t) => observed.text.push_str(&t),
                    ModelEvent::ToolCall(c) => observed.calls.push(c),
                    _ => {}
                }
            }
            Ok::<(), ModelError>(())
        };
        let outcome = tokio::time::timeout(TOOL_PROBE_TIMEOUT, read).await;
        match outcome {
            Ok(result) => result.map(|()| observed),
            Err(_) => Err(ModelError::new(
                ErrorKind::Network,
                format!(
                    "the tool-calling probe got no complete answer within {} s{}; a smaller \
                     model or a faster machine may help",
                    TOOL_PROBE_TIMEOUT.as_secs(),
                    observed.first.map_or_else(
                        || " (nothing at all)".to_owned(),
                        |d| format!(" (first output after {} ms)", millis(d))
                    )
                ),
            )),
        }
    }
}

/// The start of `text`, on a character boundary, marked when cut.
fn quote(text: &str) -> String {
    match text.char_indices().nth(QUOTE_CHARS) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_are_cut_on_characters() {
        assert_eq!(quote("short"), "short");
        let long = "é".repeat(QUOTE_CHARS + 5);
        let q = quote(&long);
        assert_eq!(q.chars().count(), QUOTE_CHARS + 1);
        assert!(q.ends_with('…'));
    }
}
