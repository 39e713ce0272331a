//! Decodes Chat Completions chunks. Tool calls arrive as fragments keyed by `index` and are
//! emitted whole at the end; usage arrives in a last chunk with no choices (when asked
//! for). Local servers bend the format: ids or indexes may be missing, a call's name may
//! come after its first argument fragments, arguments may come as an object, reasoning
//! may come as `reasoning_content` or `reasoning`, usage may be missing or repeated, and
//! `[DONE]` may never come. All of that is accepted here. A whole (non-streamed)
//! `chat.completion` body decodes into the same events ([`Decoder::whole`]).

use std::collections::HashMap;

use paddock_core::ModelEvent;
use paddock_protocol::{StopReason, TokenUsage, ToolCall};
use serde_json::Value;

use crate::anthropic::parse_input;
use crate::driver::Decoder;
use crate::errors::ErrorContext;
use crate::retry::Failure;
use crate::sse::SseEvent;
use crate::text_calls::{TextToolCall, extract_tool_calls};

use super::think::{Part, ThinkSplitter};

#[derive(Default)]
struct PendingCall {
    id: String,
    name: String,
    arguments: String,
    /// Servers that send the arguments as an object rather than a string.
    object: Option<Value>,
}

pub(crate) struct OpenAiDecoder {
    ctx: ErrorContext,
    /// Tool names to look for in the text when no native call came (compatible servers).
    text_fallback: Vec<String>,
    /// Compatible servers only: reasoning written inline as `<think>` tags.
    think: Option<ThinkSplitter>,
    /// The answer as shown (reasoning split out).
    text: String,
    /// The content as the server sent it, `<think>` tags and all: calls a model wrote
    /// inside an unclosed reasoning block are looked for here.
    raw: String,
    /// Reasoning the server sent in its own field.
    reasoning: String,
    calls: Vec<PendingCall>,
    by_index: HashMap<u64, usize>,
    finish_reason: Option<String>,
    usage: Option<TokenUsage>,
    done: bool,
}

impl OpenAiDecoder {
    pub fn new(ctx: ErrorContext, text_fallback: Vec<String>) -> Self {
        let compat = ctx.kind == crate::config::ProviderKind::OpenAiCompatible;
        Self {
            ctx,
            text_fallback,
            think: compat.then(ThinkSplitter::default),
            text: String::new(),
            raw: String::new(),
            reasoning: String::new(),
            calls: Vec::new(),
            by_index: HashMap::new(),
            finish_reason: None,
            usage: None,
            done: false,
        }
    }

    fn tool_call_delta(&mut self, tc: &Value) {
        let index = tc.get("index").and_then(Value::as_u64);
        let id = tc
            .get("id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        let function = tc.get("function").unwrap_or(&Value::Null);
        let name = function
            .get("name")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        let existing = match index {
            Some(i) => self.by_index.get(&i).copied().filter(|&slot| {
                // Some servers number every call 0; a new id under a named call is a new call.
                let call = &self.calls[slot];
                id.is_none_or(|id| call.id.is_empty() || call.id == id)
            }),
            None => match id {
                Some(id) => self.calls.iter().position(|c| c.id == id),
                // A name continues a call that has none yet (its name came after its
                // first fragments); otherwise it starts the next call.
                None if name.is_some() => self
                    .calls
                    .len()
                    .checked_sub(1)
                    .filter(|&last| self.calls[last].name.is_empty()),
                None => self.calls.len().checked_sub(1),
            },
        };
        let slot = existing.unwrap_or_else(|| {
            self.calls.push(PendingCall::default());
            self.calls.len() - 1
        });
        if let Some(i) = index {
            self.by_index.insert(i, slot);
        }
        let call = &mut self.calls[slot];
        if let (Some(id), true) = (id, call.id.is_empty()) {
            id.clone_into(&mut call.id);
        }
        if let (Some(name), true) = (name, call.name.is_empty()) {
            name.clone_into(&mut call.name);
        }
        match function.get("arguments") {
            Some(Value::String(fragment)) => call.arguments.push_str(fragment),
            Some(v @ Value::Object(_)) => call.object = Some(v.clone()),
            _ => {}
        }
    }

    fn chunk(&mut self, v: &Value, out: &mut Vec<ModelEvent>) {
        if let Some(usage) = v.get("usage").filter(|u| u.is_object()) {
            // Some servers repeat running totals on every chunk: keep the last, emit once.
            let n = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
            // OpenAI counts prompt-cache hits inside prompt_tokens, and says how many.
            let cached = usage
                .pointer("/prompt_tokens_details/cached_tokens")
                .and_then(Value::as_u64)
                .unwrap_or(0);
            self.usage = Some(
                TokenUsage::new(n("prompt_tokens"), n("completion_tokens")).with_cache_read(cached),
            );
        }
        let Some(choice) = v
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        else {
            return;
        };
        let delta = choice.get("delta").unwrap_or(&Value::Null);
        for key in ["reasoning_content", "reasoning"] {
            if let Some(r) = delta
                .get(key)
                .and_then(Value::as_str)
                .filter(|r| !r.is_empty())
            {
                self.reasoning.push_str(r);
                out.push(ModelEvent::ThinkingDelta(r.to_owned()));
                break;
            }
        }
        if let Some(text) = delta.get("content").and_then(Value::as_str) {
            self.raw.push_str(text);
            match self.think.as_mut() {
                Some(splitter) => {
                    let parts = splitter.push(text);
                    self.content(parts, out);
                }
                None => self.content(vec![Part::Text(text.to_owned())], out),
            }
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for tc in calls {
                self.tool_call_delta(tc);
            }
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(reason.to_owned());
        }
    }

    fn content(&mut self, parts: Vec<Part>, out: &mut Vec<ModelEvent>) {
        for part in parts {
            match part {
                Part::Thinking(t) => out.push(ModelEvent::ThinkingDelta(t)),
                Part::Text(t) if t.is_empty() => {}
                Part::Text(t) => {
                    self.text.push_str(&t);
                    out.push(ModelEvent::TextDelta(t));
                }
            }
        }
    }

    /// Calls written in the content, else, when there is no answer besides reasoning the
    /// server split out (an unclosed `<think>` as it parses it), in that reasoning.
    fn text_calls(&self) -> Vec<TextToolCall> {
        let found = extract_tool_calls(&self.raw, &self.text_fallback);
        if !found.is_empty() || self.reasoning.is_empty() || !self.text.trim().is_empty() {
            return found;
        }
        let unclosed = format!("<think>{}", self.reasoning);
        extract_tool_calls(&unclosed, &self.text_fallback)
    }

    fn complete(&mut self, out: &mut Vec<ModelEvent>) {
        self.done = true;
        if let Some(parts) = self.think.as_mut().map(ThinkSplitter::finish) {
            self.content(parts, out);
        }
        let mut any_call = false;
        for call in std::mem::take(&mut self.calls) {
            if call.name.is_empty() {
                continue; // a fragment that never said which tool: nothing can run it
            }
            any_call = true;
            let input = call.object.unwrap_or_else(|| parse_input(&call.arguments));
            out.push(ModelEvent::ToolCall(ToolCall {
                id: if call.id.is_empty() {
                    new_call_id()
                } else {
                    call.id
                },
                name: call.name,
                input,
                parsed_from_text: false,
            }));
        }
        if !any_call && !self.text_fallback.is_empty() {
            for found in self.text_calls() {
                any_call = true;
                out.push(ModelEvent::ToolCall(ToolCall {
                    id: new_call_id(),
                    name: found.name,
                    input: found.input,
                    parsed_from_text: true,
                }));
            }
        }
        if let Some(usage) = self.usage.take().filter(|u| !u.is_zero()) {
            out.push(ModelEvent::Usage(usage));
        }
        let stop = if any_call {
            StopReason::ToolUse
        } else {
            match self.finish_reason.as_deref() {
                Some("stop") => StopReason::EndTurn,
                Some("length") => StopReason::MaxTokens,
                Some("tool_calls" | "function_call") => StopReason::ToolUse,
                Some("content_filter") => StopReason::Refusal,
                _ => StopReason::Unknown,
            }
        };
        out.push(ModelEvent::Stop(stop));
    }
}

impl Decoder for OpenAiDecoder {
    fn event(&mut self, event: SseEvent, out: &mut Vec<ModelEvent>) -> Result<(), Failure> {
        let data = event.data.trim();
        if data == "[DONE]" {
            self.complete(out);
            return Ok(());
        }
        let v: Value = serde_json::from_str(data)
            .map_err(|e| self.ctx.invalid(format!("a chunk that is not JSON ({e})")))?;
        if v.get("error").is_some_and(|e| !e.is_null()) {
            return Err(self.ctx.stream_error(&v));
        }
        self.chunk(&v, out);
        Ok(())
    }

    fn is_done(&self) -> bool {
        self.done
    }

    /// A `chat.completion` body: each choice's `message` read as one big delta.
    fn whole(&mut self, body: &Value, out: &mut Vec<ModelEvent>) -> Result<bool, Failure> {
        let Some(choices) = body.get("choices").and_then(Value::as_array) else {
            return Ok(false);
        };
        let mut chunk = body.clone();
        chunk["choices"] = Value::Array(
            choices
                .iter()
                .map(|c| {
                    let mut c = c.clone();
                    if let Some(obj) = c.as_object_mut() {
                        let message = obj.remove("message").unwrap_or(Value::Null);
                        obj.insert("delta".into(), message);
                    }
                    c
                })
                .collect(),
        );
        self.chunk(&chunk, out);
        self.complete(out);
        Ok(true)
    }

    /// No `[DONE]`: fine if the model said why it stopped (some servers never send it).
    fn finish(&mut self, out: &mut Vec<ModelEvent>) -> Result<(), Failure> {
        if self.finish_reason.is_none() {
            return Err(self.ctx.truncated());
        }
        self.complete(out);
        Ok(())
    }
}

/// Ids for calls the server sent without one (and for calls recovered from text).
fn new_call_id() -> String {
    let suffix: String = std::iter::repeat_with(fastrand::alphanumeric)
        .take(16)
        .collect();
    format!("call_{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ProviderKind;
    use paddock_protocol::ErrorKind;
    use serde_json::json;

    fn decoder(fallback: &[&str]) -> OpenAiDecoder {
        let ctx = ErrorContext {
            kind: ProviderKind::OpenAiCompatible,
            base_url: "http://127.0.0.1:1/v1".into(),
            key: None,
        };
        OpenAiDecoder::new(ctx, fallback.iter().map(|s| s.to_string()).collect())
    }

    fn feed(d: &mut OpenAiDecoder, chunks: &[Value]) -> Vec<ModelEvent> {
        let mut out = Vec::new();
        for c in chunks {
            let event = SseEvent {
                event: String::new(),
                data: c.to_string(),
            };
            d.event(event, &mut out).unwrap();
        }
        out
    }

    fn tool_delta(tc: Value) -> Value {
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [tc]}}]})
    }

    fn calls(events: &[ModelEvent]) -> Vec<(String, String, Value)> {
        events
            .iter()
            .filter_map(|e| match e {
                ModelEvent::ToolCall(c) => Some((c.id.clone(), c.name.clone(), c.input.clone())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_reused_index_with_a_new_id_is_a_new_call() {
        let mut d = decoder(&[]);
        let mut out = feed(
            &mut d,
            &[
                tool_delta(
                    json!({"index": 0, "id": "a", "function": {"name": "x", "arguments": "{}"}}),
                ),
                tool_delta(
                    json!({"index": 0, "id": "b", "function": {"name": "y", "arguments": "{\"k\":"}}),
                ),
                tool_delta(json!({"index": 0, "function": {"arguments": "1}"}})),
                json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
            ],
        );
        d.finish(&mut out).unwrap();
        assert_eq!(
            calls(&out),
            vec![
                ("a".into(), "x".into(), json!({})),
                ("b".into(), "y".into(), json!({"k": 1})),
            ]
        );
        assert_eq!(out.last(), Some(&ModelEvent::Stop(StopReason::ToolUse)));
    }

    #[test]
    fn fragments_without_index_or_id_continue_the_last_call() {
        let mut d = decoder(&[]);
        let mut out = feed(
            &mut d,
            &[
                tool_delta(json!({"function": {"name": "x", "arguments": "{\"a\""}})),
                tool_delta(json!({"function": {"arguments": ": 2}"}})),
                tool_delta(json!({"function": {"name": "z", "arguments": "not json"}})),
            ],
        );
        out.extend(feed(
            &mut d,
            &[json!({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]})],
        ));
        d.finish(&mut out).unwrap();
        let found = calls(&out);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].2, json!({"a": 2}));
        assert_eq!(
            found[1].2,
            json!("not json"),
            "bad arguments reach the tool as they are"
        );
        assert!(found.iter().all(|c| c.0.starts_with("call_")));
    }

    #[test]
    fn a_name_after_the_first_fragments_names_that_call() {
        let mut d = decoder(&[]);
        let mut out = feed(
            &mut d,
            &[
                json!({"choices": [{"delta": {"tool_calls": []}}]}),
                tool_delta(json!({"id": "c1", "function": {"arguments": ""}})),
                tool_delta(json!({"function": {"arguments": "{\"te"}})),
                tool_delta(json!({"function": {"name": "echo"}})),
                tool_delta(json!({"function": {"arguments": "xt\": 1}"}})),
                tool_delta(json!({"function": {"name": "echo", "arguments": "{}"}})),
                json!({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}),
            ],
        );
        d.finish(&mut out).unwrap();
        let found = calls(&out);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0], ("c1".into(), "echo".into(), json!({"text": 1})));
        assert_eq!((found[1].1.as_str(), &found[1].2), ("echo", &json!({})));
    }

    #[test]
    fn a_whole_response_decodes_like_a_stream() {
        let mut d = decoder(&["grep"]);
        let mut out = Vec::new();
        let body = json!({"object": "chat.completion", "choices": [{"index": 0,
            "message": {"role": "assistant", "reasoning_content": "plan",
                        "content": "<tool_call>{\"name\": \"grep\", \"arguments\": {}}</tool_call>"},
            "finish_reason": "stop"}], "usage": {"prompt_tokens": 5, "completion_tokens": 2}});
        assert!(d.whole(&body, &mut out).unwrap());
        assert_eq!(out[0], ModelEvent::ThinkingDelta("plan".into()));
        assert!(
            matches!(&out[2], ModelEvent::ToolCall(c) if c.parsed_from_text && c.name == "grep")
        );
        assert_eq!(
            &out[3..],
            &[
                ModelEvent::Usage(TokenUsage::new(5, 2)),
                ModelEvent::Stop(StopReason::ToolUse)
            ]
        );
        assert!(d.is_done());
        assert!(!decoder(&[]).whole(&json!({"id": "x"}), &mut out).unwrap());
    }

    #[test]
    fn an_end_without_a_finish_reason_is_a_truncated_response() {
        let mut d = decoder(&[]);
        let mut out = feed(
            &mut d,
            &[json!({"choices": [{"delta": {"content": "half"}}]})],
        );
        let err = d.finish(&mut out).unwrap_err();
        assert_eq!(err.error.kind, ErrorKind::Network);
        assert!(err.retryable);
    }

    #[test]
    fn cached_prompt_tokens_are_counted_as_cache_reads() {
        let mut d = decoder(&[]);
        let mut out = feed(
            &mut d,
            &[
                json!({"choices": [{"delta": {"content": "x"}, "finish_reason": "stop"}]}),
                json!({"choices": [], "usage": {"prompt_tokens": 2006, "completion_tokens": 300,
                    "prompt_tokens_details": {"cached_tokens": 1920}}}),
            ],
        );
        d.finish(&mut out).unwrap();
        let usage: Vec<_> = out
            .iter()
            .filter(|e| matches!(e, ModelEvent::Usage(_)))
            .collect();
        assert_eq!(
            usage,
            vec![&ModelEvent::Usage(
                TokenUsage::new(2006, 300).with_cache_read(1920)
            )]
        );
    }

    #[test]
    fn repeated_running_usage_is_counted_once() {
        let mut d = decoder(&[]);
        let chunk = |n: u64| json!({"choices": [{"delta": {"content": "x"}}], "usage": {"prompt_tokens": 10, "completion_tokens": n}});
        let mut out = feed(&mut d, &[chunk(1), chunk(2), chunk(3)]);
        out.extend(feed(
            &mut d,
            &[json!({"choices": [{"delta": {}, "finish_reason": "stop"}]})],
        ));
        d.finish(&mut out).unwrap();
        let usage: Vec<_> = out
            .iter()
            .filter(|e| matches!(e, ModelEvent::Usage(_)))
            .collect();
        assert_eq!(usage, vec![&ModelEvent::Usage(TokenUsage::new(10, 3))]);
    }

    #[test]
    fn text_calls_are_recovered_only_without_native_ones() {
        let text = r#"{"name": "grep", "arguments": {"pattern": "a"}}"#;
        let mut d = decoder(&["grep"]);
        let mut out = feed(
            &mut d,
            &[json!({"choices": [{"delta": {"content": text}, "finish_reason": "stop"}]})],
        );
        d.finish(&mut out).unwrap();
        assert!(
            matches!(&out[1], ModelEvent::ToolCall(c) if c.parsed_from_text && c.name == "grep")
        );
        assert_eq!(out.last(), Some(&ModelEvent::Stop(StopReason::ToolUse)));

        let mut d = decoder(&["grep"]);
        let mut out = feed(
            &mut d,
            &[
                json!({"choices": [{"delta": {"content": text}}]}),
                tool_delta(
                    json!({"index": 0, "id": "n", "function": {"name": "grep", "arguments": "{}"}}),
                ),
            ],
        );
        out.extend(feed(
            &mut d,
            &[json!({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]})],
        ));
        d.finish(&mut out).unwrap();
        let found: Vec<_> = out
            .iter()
            .filter(|e| matches!(e, ModelEvent::ToolCall(_)))
            .collect();
        assert_eq!(found.len(), 1);
        assert!(matches!(found[0], ModelEvent::ToolCall(c) if !c.parsed_from_text));
    }
}
