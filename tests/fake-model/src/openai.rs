//! Renders a [`Reply`] as a Chat Completions stream: a role chunk, reasoning and content
//! deltas, tool calls as fragments keyed by index, a finish chunk, a usage chunk when the
//! request asked for one, then `[DONE]`. [`Quirks`] imitate local servers.

use serde_json::{Value, json};

use crate::anthropic::pieces;
use crate::script::{Fault, Reply};

fn frame(data: &Value) -> String {
    format!("data: {data}\n\n")
}

pub(crate) fn frames(reply: &Reply, model: &str, n: u64, include_usage: bool) -> Vec<String> {
    let chunk_chars = reply.chunk_chars.unwrap_or(8).max(1);
    let q = &reply.quirks;
    let id = format!("chatcmpl-fake-{n}");
    let chunk = |delta: Value, finish: Value| {
        frame(&json!({
            "id": id, "object": "chat.completion.chunk", "created": 1_700_000_000u64,
            "model": model, "system_fingerprint": "fp_fake",
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]
        }))
    };
    let mut out = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    if let Some(t) = &reply.thinking {
        let field = q.reasoning_field.as_deref().unwrap_or("reasoning_content");
        for p in pieces(&t.text, chunk_chars) {
            out.push(chunk(json!({ field: p }), Value::Null));
        }
    }
    if let Some(text) = &reply.text {
        for p in pieces(text, chunk_chars) {
            out.push(chunk(json!({"content": p}), Value::Null));
        }
    }
    for (i, call) in reply.tool_calls.iter().enumerate() {
        let call_id = call
            .id
            .clone()
            .unwrap_or_else(|| format!("call_fake_{n}_{i}"));
        let input = if call.input.is_null() {
            json!({})
        } else {
            call.input.clone()
        };
        let mut head = json!({"index": i, "type": "function", "function": {"name": call.name}});
        if !q.omit_tool_call_ids {
            head["id"] = json!(call_id);
        }
        if q.arguments_as_object {
            head["function"]["arguments"] = input;
            out.push(chunk(json!({"tool_calls": [head]}), Value::Null));
            continue;
        }
        head["function"]["arguments"] = json!("");
        out.push(chunk(json!({"tool_calls": [head]}), Value::Null));
        let args = input.to_string();
        for p in pieces(&args, chunk_chars) {
            out.push(chunk(
                json!({"tool_calls": [{"index": i, "function": {"arguments": p}}]}),
                Value::Null,
            ));
        }
    }
    let finish = reply.stop_reason.clone().unwrap_or_else(|| {
        if reply.tool_calls.is_empty() {
            "stop".to_owned()
        } else {
            "tool_calls".to_owned()
        }
    });
    out.push(chunk(json!({}), json!(finish)));
    if include_usage && !q.omit_usage {
        let u = reply.usage.unwrap_or_default();
        out.push(frame(&json!({
            "id": id, "object": "chat.completion.chunk", "created": 1_700_000_000u64,
            "model": model, "choices": [],
            "usage": {"prompt_tokens": u.input_tokens, "completion_tokens": u.output_tokens,
                      "total_tokens": u.input_tokens + u.output_tokens}
        })));
    }
    if !q.omit_done {
        out.push("data: [DONE]\n\n".to_owned());
    }
    out
}

pub(crate) fn fault_frame(fault: &Fault) -> Option<String> {
    match fault {
        Fault::Malformed { .. } => {
            Some("data: {\"id\": \"chatcmpl-fake\", \"choices\": [\n\n".to_owned())
        }
        Fault::StreamError {
            error_type,
            message,
            ..
        } => Some(frame(
            &json!({"error": {"message": message, "type": error_type, "param": null, "code": null}}),
        )),
        _ => None,
    }
}

/// OpenAI's error body for an HTTP status.
pub(crate) fn error_body(status: u16, message: &str) -> Value {
    let (kind, code) = match status {
        401 => ("invalid_request_error", "invalid_api_key"),
        404 => ("invalid_request_error", "model_not_found"),
        429 => ("requests", "rate_limit_exceeded"),
        400..=499 => ("invalid_request_error", "invalid_request"),
        _ => ("server_error", "server_error"),
    };
    json!({"error": {"message": message, "type": kind, "param": null, "code": code}})
}
