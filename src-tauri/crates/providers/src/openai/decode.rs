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
use paddock_text_calls::{TextToolCall, extract_tool_calls, repair_input, strip_tool_calls};

use super::holdback::Holdback;
use super::repeats::{self, Repeats};
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
    /// What of the answer may be shown yet (calls written as text are held back).
    holdback: Holdback,
    /// Compatible servers only: a reply going round in circles is cut.
    repeats: Option<Repeats>,
    /// The reply was cut for repeating itself.
    cut: bool,
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
            holdback: Holdback::default(),
            repeats: compat.then(Repeats::default),
            cut: false,
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
                self.watch(r);
                break;
            }
        }
        if let Some(text) = delta.get("content").and_then(Value::as_str) {
            self.raw.push_str(text);
            self.watch(text);
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

    /// Feeds the repeat guard; `cut` once the reply goes round in circles.
    fn watch(&mut self, text: &str) {
        if self.repeats.as_mut().is_some_and(|r| r.push(text)) {
            self.cut = true;
        }
    }

    fn content(&mut self, parts: Vec<Part>, out: &mut Vec<ModelEvent>) {
        for part in parts {
            match part {
                Part::Thinking(t) => out.push(ModelEvent::ThinkingDelta(t)),
                Part::Text(t) if t.is_empty() => {}
                Part::Text(t) if self.text_fallback.is_empty() => {
                    self.text.push_str(&t);
                    out.push(ModelEvent::TextDelta(t));
                }
                Part::Text(t) => {
                    self.text.push_str(&t);
                    let shown = self.holdback.release(&self.text);
                    if !shown.is_empty() {
                        out.push(ModelEvent::TextDelta(shown.to_owned()));
                    }
                }
            }
        }
    }

    /// The held-back rest of the answer, without the calls read from it.
    fn release_rest(&mut self, calls: &[TextToolCall], out: &mut Vec<ModelEvent>) {
        if self.text_fallback.is_empty() {
            return; // nothing was held back
        }
        let rest = self.holdback.rest(&self.text);
        let shown = if calls.is_empty() {
            rest.to_owned()
        } else {
            strip_tool_calls(rest, &self.text_fallback)
        };
        if !shown.is_empty() {
            out.push(ModelEvent::TextDelta(shown));
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
        let natives = std::mem::take(&mut self.calls);
        let mut text_calls =
            if !self.text_fallback.is_empty() && natives.iter().all(|c| c.name.is_empty()) {
                self.text_calls()
            } else {
                Vec::new()
            };
        if self.cut {
            // A reply cut for repeating itself repeats its calls too: each once.
            let mut unique: Vec<TextToolCall> = Vec::new();
            for c in text_calls {
                if !unique
                    .iter()
                    .any(|u| u.name == c.name && u.input == c.input)
                {
                    unique.push(c);
                }
            }
            text_calls = unique;
            out.push(ModelEvent::Notice(format!(
                "the model kept writing the same few lines ({} lines, at most {} different); \
                 its reply was cut there",
                repeats::WINDOW,
                repeats::MAX_DISTINCT
            )));
        }
        self.release_rest(&text_calls, out);
        let mut any_call = false;
        for call in natives {
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
        if !any_call {
            for found in text_calls {
                any_call = true;
                // Arguments cut short are closed and read; otherwise the tool gets the
                // text as written, and says it is not a JSON object.
                let input = match found.unparsed {
                    Some(raw) => repair_input(&raw, &found.name).unwrap_or(Value::String(raw)),
                    None => found.input,
                };
                out.push(ModelEvent::ToolCall(ToolCall {
                    id: new_call_id(),
                    name: found.name,
                    input,
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
                _ if self.cut => StopReason::MaxTokens,
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
        if self.cut {
            // Done: the driver drops the connection, which stops the server generating.
            self.complete(out);
        }
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
#[path = "decode_tests.rs"]
mod tests;
