//! Decodes Anthropic's streaming events: message_start, content_block_start / delta / stop,
//! message_delta, message_stop, ping and error. Unknown events and delta types are skipped,
//! as Anthropic's versioning policy asks.

use std::collections::HashMap;

use paddock_core::ModelEvent;
use paddock_protocol::{StopReason, TokenUsage, ToolCall};
use serde_json::Value;

use crate::driver::Decoder;
use crate::errors::ErrorContext;
use crate::retry::Failure;
use crate::sse::SseEvent;

enum Block {
    Text,
    Thinking {
        signature: String,
    },
    ToolUse {
        id: String,
        name: String,
        json: String,
    },
    /// Block types we neither send nor show (server tools, citations).
    Other,
}

pub(crate) struct AnthropicDecoder {
    ctx: ErrorContext,
    blocks: HashMap<u64, Block>,
    stop: Option<StopReason>,
    /// Usage so far: Anthropic's counts are cumulative, the kernel wants increments.
    input: u64,
    output: u64,
    cache_read: u64,
    cache_write: u64,
    done: bool,
}

impl AnthropicDecoder {
    pub fn new(ctx: ErrorContext) -> Self {
        Self {
            ctx,
            blocks: HashMap::new(),
            stop: None,
            input: 0,
            output: 0,
            cache_read: 0,
            cache_write: 0,
            done: false,
        }
    }

    fn usage(&mut self, usage: &Value, out: &mut Vec<ModelEvent>) {
        let field = |k: &str| usage.get(k).and_then(Value::as_u64);
        let parts = [
            field("input_tokens"),
            field("cache_creation_input_tokens"),
            field("cache_read_input_tokens"),
        ];
        let mut delta = TokenUsage::default();
        if parts.iter().any(Option::is_some) {
            let input: u64 = parts.iter().flatten().sum();
            delta.input_tokens = input.saturating_sub(self.input);
            self.input = self.input.max(input);
        }
        if let Some(read) = field("cache_read_input_tokens") {
            delta.cache_read_tokens = read.saturating_sub(self.cache_read);
            self.cache_read = self.cache_read.max(read);
        }
        if let Some(written) = field("cache_creation_input_tokens") {
            delta.cache_write_tokens = written.saturating_sub(self.cache_write);
            self.cache_write = self.cache_write.max(written);
        }
        if let Some(output) = field("output_tokens") {
            delta.output_tokens = output.saturating_sub(self.output);
            self.output = self.output.max(output);
        }
        if !delta.is_zero() {
            out.push(ModelEvent::Usage(delta));
        }
    }

    fn block_start(&mut self, v: &Value, out: &mut Vec<ModelEvent>) -> Result<(), Failure> {
        let index = self.index(v)?;
        let block = v.get("content_block").unwrap_or(&Value::Null);
        let text_of = |k: &str| block.get(k).and_then(Value::as_str).unwrap_or("");
        let state = match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                push_text(out, ModelEvent::TextDelta, text_of("text"));
                Block::Text
            }
            Some("thinking") => {
                push_text(out, ModelEvent::ThinkingDelta, text_of("thinking"));
                Block::Thinking {
                    signature: text_of("signature").to_owned(),
                }
            }
            Some("redacted_thinking") => {
                out.push(ModelEvent::RedactedThinking(text_of("data").to_owned()));
                Block::Other
            }
            Some("tool_use") => {
                // The input arrives as JSON fragments; a non-empty start value is a fallback.
                let initial = block
                    .get("input")
                    .filter(|i| i.as_object().is_some_and(|o| !o.is_empty()))
                    .map(Value::to_string)
                    .unwrap_or_default();
                Block::ToolUse {
                    id: text_of("id").to_owned(),
                    name: text_of("name").to_owned(),
                    json: initial,
                }
            }
            _ => Block::Other,
        };
        self.blocks.insert(index, state);
        Ok(())
    }

    fn block_delta(&mut self, v: &Value, out: &mut Vec<ModelEvent>) -> Result<(), Failure> {
        let index = self.index(v)?;
        let delta = v.get("delta").unwrap_or(&Value::Null);
        let text_of = |k: &str| delta.get(k).and_then(Value::as_str).unwrap_or("");
        let kind = delta.get("type").and_then(Value::as_str).unwrap_or("");
        match (self.blocks.get_mut(&index), kind) {
            (_, "text_delta") => push_text(out, ModelEvent::TextDelta, text_of("text")),
            (_, "thinking_delta") => {
                push_text(out, ModelEvent::ThinkingDelta, text_of("thinking"));
            }
            (Some(Block::Thinking { signature }), "signature_delta") => {
                signature.push_str(text_of("signature"));
            }
            (Some(Block::ToolUse { json, .. }), "input_json_delta") => {
                json.push_str(text_of("partial_json"));
            }
            (None, "signature_delta" | "input_json_delta") => {
                return Err(self
                    .ctx
                    .invalid(format!("a {kind} for block {index}, which never started")));
            }
            _ => {}
        }
        Ok(())
    }

    fn block_stop(&mut self, v: &Value, out: &mut Vec<ModelEvent>) -> Result<(), Failure> {
        let index = self.index(v)?;
        match self.blocks.remove(&index) {
            Some(Block::Thinking { signature }) if !signature.is_empty() => {
                out.push(ModelEvent::ThinkingSignature(signature));
            }
            Some(Block::ToolUse { id, name, json }) => {
                out.push(ModelEvent::ToolCall(ToolCall {
                    id,
                    name,
                    input: parse_input(&json),
                    parsed_from_text: false,
                }));
            }
            _ => {}
        }
        Ok(())
    }

    fn index(&self, v: &Value) -> Result<u64, Failure> {
        v.get("index")
            .and_then(Value::as_u64)
            .ok_or_else(|| self.ctx.invalid("a content block event without an index"))
    }
}

/// Tool input JSON. Input that does not parse is kept as a string: the tool then reports
/// invalid input to the model, which can correct itself.
pub(crate) fn parse_input(raw: &str) -> Value {
    if raw.trim().is_empty() {
        return Value::Object(serde_json::Map::new());
    }
    match serde_json::from_str(raw) {
        // A small model's arguments wrapped in an array (`[{"todos": …}]`): its one object.
        Ok(Value::Array(mut items)) if items.len() == 1 && items[0].is_object() => items.remove(0),
        Ok(v) => v,
        Err(_) => Value::String(raw.to_owned()),
    }
}

fn push_text(out: &mut Vec<ModelEvent>, make: fn(String) -> ModelEvent, text: &str) {
    if !text.is_empty() {
        out.push(make(text.to_owned()));
    }
}

fn stop_reason(s: &str) -> StopReason {
    match s {
        "end_turn" => StopReason::EndTurn,
        "tool_use" => StopReason::ToolUse,
        "max_tokens" | "model_context_window_exceeded" => StopReason::MaxTokens,
        "stop_sequence" => StopReason::StopSequence,
        "refusal" => StopReason::Refusal,
        _ => StopReason::Unknown,
    }
}

impl Decoder for AnthropicDecoder {
    fn event(&mut self, event: SseEvent, out: &mut Vec<ModelEvent>) -> Result<(), Failure> {
        let v: Value = serde_json::from_str(&event.data).map_err(|e| {
            self.ctx.invalid(format!(
                "an event '{}' whose data is not JSON ({e})",
                event.event
            ))
        })?;
        let kind = v
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(event.event.as_str());
        match kind {
            "message_start" => {
                if let Some(usage) = v.pointer("/message/usage") {
                    self.usage(usage, out);
                }
            }
            "content_block_start" => self.block_start(&v, out)?,
            "content_block_delta" => self.block_delta(&v, out)?,
            "content_block_stop" => self.block_stop(&v, out)?,
            "message_delta" => {
                if let Some(reason) = v.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop = Some(stop_reason(reason));
                }
                if let Some(usage) = v.get("usage") {
                    self.usage(usage, out);
                }
            }
            "message_stop" => {
                out.push(ModelEvent::Stop(self.stop.unwrap_or(StopReason::Unknown)));
                self.done = true;
            }
            "error" => return Err(self.ctx.stream_error(&v)),
            _ => {} // ping and events added after this was written
        }
        Ok(())
    }

    fn is_done(&self) -> bool {
        self.done
    }

    fn finish(&mut self, _out: &mut Vec<ModelEvent>) -> Result<(), Failure> {
        Err(self.ctx.truncated())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ProviderKind;
    use paddock_protocol::ErrorKind;
    use serde_json::json;

    /// Issue 52: arguments wrapped in a one-element array reached the tool as an array.
    #[test]
    fn arguments_in_a_one_element_array_are_its_object() {
        assert_eq!(parse_input(r#"[{"todos": []}]"#), json!({"todos": []}));
        assert_eq!(
            parse_input(r#"[{"a": 1}, {"b": 2}]"#),
            json!([{"a": 1}, {"b": 2}])
        );
        assert_eq!(parse_input(""), json!({}));
        assert_eq!(parse_input("not json"), json!("not json"));
    }

    fn run(events: &[Value]) -> (Vec<ModelEvent>, Option<Failure>) {
        let mut d = AnthropicDecoder::new(ErrorContext {
            kind: ProviderKind::Anthropic,
            base_url: "https://api.anthropic.com".into(),
            key: None,
        });
        let mut out = Vec::new();
        for v in events {
            let event = SseEvent {
                event: String::new(),
                data: v.to_string(),
            };
            if let Err(f) = d.event(event, &mut out) {
                return (out, Some(f));
            }
        }
        (out, None)
    }

    #[test]
    fn unknown_events_and_deltas_are_skipped() {
        let (out, err) = run(&[
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "citations_delta", "citation": {}}}),
            json!({"type": "something_new", "payload": 1}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}}),
            json!({"type": "message_stop"}),
        ]);
        assert!(err.is_none());
        assert_eq!(
            out,
            vec![
                ModelEvent::TextDelta("ok".into()),
                ModelEvent::Stop(StopReason::Unknown)
            ]
        );
    }

    #[test]
    fn bad_tool_json_is_kept_as_a_string() {
        let (out, _) = run(&[
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t", "name": "grep", "input": {}}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"pattern\": "}}),
            json!({"type": "content_block_stop", "index": 0}),
        ]);
        assert!(matches!(&out[0], ModelEvent::ToolCall(c) if c.input == json!("{\"pattern\": ")));
    }

    #[test]
    fn a_tool_without_input_gets_an_empty_object() {
        let (out, _) = run(&[
            json!({"type": "content_block_start", "index": 3, "content_block": {"type": "tool_use", "id": "t", "name": "glob", "input": {}}}),
            json!({"type": "content_block_stop", "index": 3}),
        ]);
        assert!(matches!(&out[0], ModelEvent::ToolCall(c) if c.input == json!({})));
    }

    #[test]
    fn structural_errors_are_invalid_responses() {
        let (_, err) = run(&[
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{"}}),
        ]);
        assert_eq!(err.unwrap().error.kind, ErrorKind::InvalidResponse);
        let (_, err) =
            run(&[json!({"type": "content_block_start", "content_block": {"type": "text"}})]);
        assert_eq!(err.unwrap().error.kind, ErrorKind::InvalidResponse);
    }

    #[test]
    fn error_events_are_classified() {
        let (_, err) = run(&[
            json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}}),
        ]);
        let err = err.unwrap();
        assert_eq!(err.error.kind, ErrorKind::RateLimited);
        assert!(err.retryable);
    }
}
