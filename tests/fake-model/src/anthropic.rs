//! Renders a [`Reply`] as an Anthropic Messages stream, event by event as the documentation
//! shows them: message_start, content blocks (with a ping after the first start),
//! message_delta, message_stop.

use serde_json::{Value, json};

use crate::script::{Fault, Reply};

pub(crate) fn frame(event: &str, data: &Value) -> String {
    format!("event: {event}\ndata: {data}\n\n")
}

/// The SSE frames of a reply, before faults are applied.
pub(crate) fn frames(reply: &Reply, model: &str, n: u64) -> Vec<String> {
    let chunk = reply.chunk_chars.unwrap_or(8).max(1);
    let usage = reply.usage.unwrap_or_default();
    let mut out = vec![frame(
        "message_start",
        &json!({"type": "message_start", "message": {
            "id": format!("msg_fake_{n}"), "type": "message", "role": "assistant",
            "model": model, "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": usage.input_tokens, "output_tokens": 1.min(usage.output_tokens)}
        }}),
    )];
    let mut index = 0u64;
    let mut block = |out: &mut Vec<String>, start: Value, deltas: Vec<Value>| {
        out.push(frame(
            "content_block_start",
            &json!({"type": "content_block_start", "index": index, "content_block": start}),
        ));
        if index == 0 {
            out.push(frame("ping", &json!({"type": "ping"})));
        }
        for delta in deltas {
            out.push(frame(
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": index, "delta": delta}),
            ));
        }
        out.push(frame(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        ));
        index += 1;
    };
    if let Some(t) = &reply.thinking {
        let mut deltas: Vec<Value> = pieces(&t.text, chunk)
            .map(|p| json!({"type": "thinking_delta", "thinking": p}))
            .collect();
        if !t.signature.is_empty() {
            deltas.push(json!({"type": "signature_delta", "signature": t.signature}));
        }
        block(
            &mut out,
            json!({"type": "thinking", "thinking": "", "signature": ""}),
            deltas,
        );
    }
    for data in &reply.redacted_thinking {
        block(
            &mut out,
            json!({"type": "redacted_thinking", "data": data}),
            vec![],
        );
    }
    if let Some(text) = &reply.text {
        let deltas = pieces(text, chunk)
            .map(|p| json!({"type": "text_delta", "text": p}))
            .collect();
        block(&mut out, json!({"type": "text", "text": ""}), deltas);
    }
    for (i, call) in reply.tool_calls.iter().enumerate() {
        let id = call
            .id
            .clone()
            .unwrap_or_else(|| format!("toolu_fake_{n}_{i}"));
        let input = if call.input.is_null() {
            "{}".to_owned()
        } else {
            call.input.to_string()
        };
        // Anthropic opens tool input with an empty fragment.
        let deltas = std::iter::once(String::new())
            .chain(pieces(&input, chunk).map(str::to_owned))
            .map(|p| json!({"type": "input_json_delta", "partial_json": p}))
            .collect();
        block(
            &mut out,
            json!({"type": "tool_use", "id": id, "name": call.name, "input": {}}),
            deltas,
        );
    }
    let stop = reply.stop_reason.clone().unwrap_or_else(|| {
        if reply.tool_calls.is_empty() {
            "end_turn".to_owned()
        } else {
            "tool_use".to_owned()
        }
    });
    out.push(frame(
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
                "usage": {"output_tokens": usage.output_tokens}}),
    ));
    out.push(frame("message_stop", &json!({"type": "message_stop"})));
    out
}

/// The frame a fault inserts into the stream, if it inserts one.
pub(crate) fn fault_frame(fault: &Fault) -> Option<String> {
    match fault {
        Fault::Malformed { .. } => Some(
            "event: content_block_delta\ndata: {\"type\": \"content_block_delta\", \"index\": 0, \"delta\": {\"type\": \"text_delta\", \"text\": \"oops\n\n".to_owned(),
        ),
        Fault::StreamError {
            error_type,
            message,
            ..
        } => Some(frame(
            "error",
            &json!({"type": "error", "error": {"type": error_type, "message": message}}),
        )),
        _ => None,
    }
}

/// Anthropic's error body for an HTTP status.
pub(crate) fn error_body(status: u16, message: &str) -> Value {
    let kind = match status {
        400 => "invalid_request_error",
        401 => "authentication_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        529 => "overloaded_error",
        _ => "api_error",
    };
    json!({"type": "error", "error": {"type": kind, "message": message}})
}

/// `text` in pieces of `n` characters (never splitting a character).
pub(crate) fn pieces(text: &str, n: usize) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let cut = rest.char_indices().nth(n).map_or(rest.len(), |(i, _)| i);
        let (head, tail) = rest.split_at(cut);
        rest = tail;
        Some(head)
    })
}
