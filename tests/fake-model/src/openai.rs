//! Renders a [`Reply`] as a Chat Completions stream: a role chunk, reasoning and content
//! deltas, tool calls as fragments keyed by index, a finish chunk, a usage chunk when the
//! request asked for one, then `[DONE]`; or, for a request that does not stream, as one
//! `chat.completion` document. [`crate::Quirks`] imitate local servers.

use serde_json::{Value, json};

use crate::anthropic::pieces;
use crate::script::{Fault, Reply, ScriptCall};

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
        let call_id = call_id(call, n, i);
        let input = input(call);
        if q.odd_tool_chunks {
            for delta in odd_pieces(call, &call_id, i, q.omit_tool_call_ids) {
                out.push(chunk(json!({ "tool_calls": [delta] }), Value::Null));
            }
            continue;
        }
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
    out.push(chunk(json!({}), json!(finish_reason(reply))));
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

fn call_id(call: &ScriptCall, n: u64, i: usize) -> String {
    call.id
        .clone()
        .unwrap_or_else(|| format!("call_fake_{n}_{i}"))
}

fn input(call: &ScriptCall) -> Value {
    if call.input.is_null() {
        json!({})
    } else {
        call.input.clone()
    }
}

fn finish_reason(reply: &Reply) -> String {
    reply.stop_reason.clone().unwrap_or_else(|| {
        if reply.tool_calls.is_empty() {
            "stop".to_owned()
        } else {
            "tool_calls".to_owned()
        }
    })
}

/// One call as servers with odd streaming send it: a first chunk with only the id (or,
/// without ids, the index) and empty arguments, the first 3 characters of the arguments
/// (mid-key), then the name alone, then the rest in 2-character pieces, none of these
/// with an `index`.
fn odd_pieces(call: &ScriptCall, id: &str, i: usize, omit_id: bool) -> Vec<Value> {
    let mut first = json!({"type": "function", "function": {"arguments": ""}});
    if omit_id {
        first["index"] = json!(i);
    } else {
        first["id"] = json!(id);
    }
    let args = input(call).to_string();
    let cut = args.char_indices().nth(3).map_or(args.len(), |(at, _)| at);
    let mut out = vec![
        first,
        json!({"function": {"arguments": &args[..cut]}}),
        json!({"function": {"name": call.name}}),
    ];
    out.extend(pieces(&args[cut..], 2).map(|p| json!({"function": {"arguments": p}})));
    out
}

/// The reply as one `chat.completion` document (a request with `stream` off).
pub(crate) fn whole(reply: &Reply, model: &str, n: u64) -> Value {
    let q = &reply.quirks;
    let mut message = json!({"role": "assistant", "content": reply.text});
    if let Some(t) = &reply.thinking {
        let field = q.reasoning_field.as_deref().unwrap_or("reasoning_content");
        message[field] = json!(t.text);
    }
    if !reply.tool_calls.is_empty() {
        let calls: Vec<Value> = reply
            .tool_calls
            .iter()
            .enumerate()
            .map(|(i, call)| {
                let arguments = if q.arguments_as_object {
                    input(call)
                } else {
                    json!(input(call).to_string())
                };
                let mut c = json!({"type": "function",
                    "function": {"name": call.name, "arguments": arguments}});
                if !q.omit_tool_call_ids {
                    c["id"] = json!(call_id(call, n, i));
                }
                c
            })
            .collect();
        message["tool_calls"] = Value::Array(calls);
    }
    let mut doc = json!({
        "id": format!("chatcmpl-fake-{n}"), "object": "chat.completion",
        "created": 1_700_000_000u64, "model": model, "system_fingerprint": "fp_fake",
        "choices": [{"index": 0, "message": message, "logprobs": null,
                     "finish_reason": finish_reason(reply)}]
    });
    if !q.omit_usage {
        let u = reply.usage.unwrap_or_default();
        doc["usage"] = json!({"prompt_tokens": u.input_tokens,
            "completion_tokens": u.output_tokens,
            "total_tokens": u.input_tokens + u.output_tokens});
    }
    doc
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::Quirks;

    fn tool_deltas(reply: &Reply) -> Vec<Value> {
        frames(reply, "m", 0, false)
            .iter()
            .filter_map(|f| serde_json::from_str::<Value>(f.strip_prefix("data: ")?.trim()).ok())
            .filter_map(|v| v.pointer("/choices/0/delta/tool_calls/0").cloned())
            .collect()
    }

    #[test]
    fn odd_chunks_send_the_name_late_and_no_index() {
        let reply = Reply::tool_call("grep", json!({"pattern": "x"})).with_quirks(Quirks {
            odd_tool_chunks: true,
            ..Quirks::default()
        });
        let deltas = tool_deltas(&reply);
        assert_eq!(
            deltas[0],
            json!({"id": "call_fake_0_0", "type": "function", "function": {"arguments": ""}})
        );
        assert_eq!(deltas[1], json!({"function": {"arguments": "{\"p"}}));
        assert_eq!(deltas[2], json!({"function": {"name": "grep"}}));
        assert!(deltas.iter().all(|d| d.get("index").is_none()));
        let args: String = deltas
            .iter()
            .filter_map(|d| d.pointer("/function/arguments")?.as_str())
            .collect();
        assert_eq!(args, "{\"pattern\":\"x\"}");
    }

    #[test]
    fn whole_documents_follow_the_quirks() {
        let reply = Reply::tool_call("grep", json!({"pattern": "x"})).with_quirks(Quirks {
            omit_usage: true,
            omit_tool_call_ids: true,
            arguments_as_object: true,
            reasoning_field: Some("reasoning".into()),
            ..Quirks::default()
        });
        let doc = whole(&reply.with_thinking("t", ""), "m", 3);
        let message = &doc["choices"][0]["message"];
        assert_eq!(message["content"], Value::Null);
        assert_eq!(message["reasoning"], "t");
        assert_eq!(
            message["tool_calls"][0],
            json!({"type": "function", "function": {"name": "grep", "arguments": {"pattern": "x"}}})
        );
        assert!(doc.get("usage").is_none());
        assert_eq!(doc["id"], "chatcmpl-fake-3");
    }
}
