//! Builds Chat Completions request bodies (OpenAI and compatible servers).

use paddock_core::ModelRequest;
use paddock_protocol::{ContentBlock, Message, Role, ToolCall};
use serde_json::{Map, Value, json};

use paddock_text_calls::strip_tool_calls;

/// `streamed` false asks for one JSON answer (servers that cannot stream tool calls).
pub(crate) fn body(req: &ModelRequest<'_>, compat: bool, streamed: bool) -> Value {
    let mut messages = Vec::new();
    if let Some(system) = req.system.filter(|s| !s.is_empty()) {
        messages.push(json!({"role": "system", "content": system}));
    }
    for m in req.messages {
        match m.role {
            Role::User => user(m, &mut messages),
            Role::Assistant => messages.extend(assistant(m)),
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(req.model));
    body.insert("messages".into(), Value::Array(messages));
    body.insert("stream".into(), json!(streamed));
    if streamed {
        // Without this, OpenAI sends no usage in a stream. Servers that do not know it
        // ignore it.
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    if let Some(max) = req.max_output_tokens {
        // OpenAI replaced max_tokens (its reasoning models reject it); local servers
        // mostly know only the old name.
        let key = if compat {
            "max_tokens"
        } else {
            "max_completion_tokens"
        };
        body.insert(key.into(), json!(max));
    }
    if !req.tools.is_empty() {
        let tools = req
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.input_schema,
                }})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    Value::Object(body)
}

/// Tool results become `tool` messages (they must directly follow the assistant's calls);
/// any text the user message also carries follows them as a user message. With images, that
/// message's content is an array of text and `image_url` parts; a tool's image (tool messages
/// take text only) goes there too, after a line naming its call.
fn user(m: &Message, out: &mut Vec<Value>) {
    let mut text = String::new();
    let mut images: Vec<Value> = Vec::new();
    for block in &m.content {
        match block {
            ContentBlock::ToolResult(r) => {
                // Chat Completions has no error flag: say it in the content.
                let content = super::result_text(r);
                out.push(
                    json!({"role": "tool", "tool_call_id": r.tool_call_id, "content": content}),
                );
            }
            ContentBlock::Text { text: t } => push_paragraph(&mut text, t),
            ContentBlock::Mention(mention) => push_paragraph(&mut text, &mention.model_text()),
            ContentBlock::Image(image) => {
                if let Some(call) = &image.tool_call_id {
                    images.push(
                        json!({"type": "text", "text": crate::images::from_call(image, call)}),
                    );
                }
                images.push(crate::images::openai_part(image));
            }
            _ => {}
        }
    }
    if !images.is_empty() {
        let mut parts = Vec::new();
        if !text.is_empty() {
            parts.push(json!({"type": "text", "text": text}));
        }
        parts.extend(images);
        out.push(json!({"role": "user", "content": parts}));
    } else if !text.is_empty() {
        out.push(json!({"role": "user", "content": text}));
    }
}

fn assistant(m: &Message) -> Option<Value> {
    let mut text = String::new();
    let mut calls: Vec<&ToolCall> = Vec::new();
    for block in &m.content {
        match block {
            ContentBlock::Text { text: t } => text.push_str(t),
            ContentBlock::ToolCall(c) => calls.push(c),
            // Reasoning is not sent back in this format.
            _ => {}
        }
    }
    let from_text: Vec<&str> = calls
        .iter()
        .filter(|c| c.parsed_from_text)
        .map(|c| c.name.as_str())
        .collect();
    if !from_text.is_empty() {
        // The calls go back in native form; leaving them in the text too would show the
        // model every call twice.
        text = strip_tool_calls(&text, &from_text);
    }
    if text.is_empty() && calls.is_empty() {
        return None;
    }
    let mut msg = json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { json!(text) }});
    if !calls.is_empty() {
        let calls: Vec<Value> = calls
            .iter()
            .map(|c| {
                json!({"id": c.id, "type": "function", "function": {
                    "name": c.name,
                    "arguments": arguments(&c.input),
                }})
            })
            .collect();
        msg["tool_calls"] = Value::Array(calls);
    }
    Some(msg)
}

/// Arguments travel as a JSON string; input that never parsed goes back as it came.
fn arguments(input: &Value) -> String {
    match input {
        Value::String(raw) => raw.clone(),
        other => other.to_string(),
    }
}

fn push_paragraph(out: &mut String, text: &str) {
    if text.is_empty() {
        return;
    }
    if !out.is_empty() {
        out.push_str("\n\n");
    }
    out.push_str(text);
}
