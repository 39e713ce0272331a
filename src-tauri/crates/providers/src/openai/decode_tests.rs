//! The OpenAI stream decoder's unit tests.

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
    // The call is not shown as text: it is the call.
    assert!(matches!(&out[1], ModelEvent::ToolCall(c) if c.parsed_from_text && c.name == "grep"));
    assert_eq!(
        &out[2..],
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
    assert!(matches!(&out[0], ModelEvent::ToolCall(c) if c.parsed_from_text && c.name == "grep"));
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
