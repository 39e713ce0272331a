//! OpenAI-compatible local servers: their quirks, and tool calls recovered from text.

use std::sync::Arc;

use paddock_core::ModelEvent;
use paddock_fake_model::{FakeServer, Quirks, Reply};
use paddock_protocol::{ExitReason, StopReason, TokenUsage};
use paddock_providers::{Provider, ProviderConfig, ProviderKind};
use serde_json::json;

use crate::support::*;

fn calls(events: &[ModelEvent]) -> Vec<&paddock_protocol::ToolCall> {
    events
        .iter()
        .filter_map(|e| match e {
            ModelEvent::ToolCall(c) => Some(c),
            _ => None,
        })
        .collect()
}

/// A local server without a key, given as a bare host the way people paste it.
fn keyless(server: &FakeServer) -> Provider {
    let cfg = ProviderConfig::new(ProviderKind::OpenAiCompatible)
        .with_base_url(server.url())
        .with_retry(fast_retry());
    Provider::new(cfg).unwrap()
}

#[tokio::test]
async fn ollama_style_reply_without_ids_usage_or_done() {
    let server = FakeServer::start().await.unwrap();
    server.push(
        Reply::default()
            .with_thinking("need two echoes", "")
            .with_tool_call(None, "echo", json!({"text": "a"}))
            .with_tool_call(None, "echo", json!({"text": "b"}))
            .with_quirks(Quirks {
                omit_usage: true,
                omit_tool_call_ids: true,
                reasoning_field: Some("reasoning".into()),
                omit_done: true,
                ..Quirks::default()
            }),
    );
    let got = ask(&keyless(&server), "echo a and b").await;
    assert_eq!(got.error, None);
    let found = calls(&got.events);
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].input, json!({"text": "a"}));
    assert_eq!(found[1].input, json!({"text": "b"}));
    assert!(
        found
            .iter()
            .all(|c| c.id.starts_with("call_") && !c.parsed_from_text)
    );
    assert_ne!(found[0].id, found[1].id);
    let thinking: String = got
        .events
        .iter()
        .filter_map(|e| match e {
            ModelEvent::ThinkingDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(thinking, "need two echoes");
    assert!(!got.events.iter().any(|e| matches!(e, ModelEvent::Usage(_))));
    assert_eq!(
        got.events.last(),
        Some(&ModelEvent::Stop(StopReason::ToolUse))
    );

    let req = &server.requests()[0];
    assert_eq!(req.path, "/v1/chat/completions", "a bare host gets /v1");
    assert_eq!(req.header("authorization"), None, "no key, no header");
    assert_eq!(
        req.body["max_tokens"],
        json!(256),
        "local servers get max_tokens"
    );
    assert!(req.body.get("max_completion_tokens").is_none());
}

#[tokio::test]
async fn arguments_sent_as_an_object_are_accepted() {
    let server = FakeServer::start().await.unwrap();
    server.push(
        Reply::tool_call("echo", json!({"text": "obj"})).with_quirks(Quirks {
            arguments_as_object: true,
            ..Quirks::default()
        }),
    );
    let got = ask(&keyless(&server), "x").await;
    assert_eq!(calls(&got.events)[0].input, json!({"text": "obj"}));
}

#[tokio::test]
async fn an_optional_key_is_sent_when_given() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text("hi"));
    let got = ask(&provider(ProviderKind::OpenAiCompatible, &server), "x").await;
    assert_eq!(got.error, None);
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
}

#[tokio::test]
async fn hermes_tags_in_text_become_tool_calls() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text(
        "<think>I should call echo.</think>\n<tool_call>\n{\"name\": \"echo\", \"arguments\": {\"text\": \"hi\"}}\n</tool_call>",
    ).with_usage(30, 9));
    let got = ask(&keyless(&server), "say hi").await;
    assert_eq!(got.error, None);
    let found = calls(&got.events);
    assert_eq!(found.len(), 1);
    assert_eq!(
        (found[0].name.as_str(), &found[0].input),
        ("echo", &json!({"text": "hi"}))
    );
    assert!(found[0].parsed_from_text);
    assert_eq!(
        &got.events[got.events.len() - 2..],
        &[
            ModelEvent::Usage(TokenUsage::new(30, 9)),
            ModelEvent::Stop(StopReason::ToolUse)
        ]
    );
}

#[tokio::test]
async fn unknown_tools_in_text_are_left_as_text() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text(
        r#"{"name": "rm_rf", "arguments": {"path": "/"}}"#,
    ));
    let got = ask(&keyless(&server), "x").await;
    assert!(calls(&got.events).is_empty());
    assert_eq!(
        got.events.last(),
        Some(&ModelEvent::Stop(StopReason::EndTurn))
    );
}

#[tokio::test]
async fn native_providers_never_parse_text() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text(
        r#"{"name": "echo", "arguments": {"text": "x"}}"#,
    ));
    let got = ask(&provider(ProviderKind::OpenAi, &server), "x").await;
    assert!(calls(&got.events).is_empty());
}

#[tokio::test]
async fn the_fallback_can_be_switched_off() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text(
        r#"{"name": "echo", "arguments": {"text": "x"}}"#,
    ));
    let mut cfg = config(ProviderKind::OpenAiCompatible, &server);
    cfg.text_tool_calls = false;
    let got = ask(&Provider::new(cfg).unwrap(), "x").await;
    assert!(calls(&got.events).is_empty());
}

#[tokio::test]
async fn a_text_call_conversation_runs_through_the_loop() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::text(
            "Sure, I'll echo that.\n```json\n{\"name\": \"echo\", \"parameters\": {\"text\": \"from text\"}}\n```",
        ),
        Reply::text("The tool said: echo: from text"),
    ]);
    let echo = EchoTool::new();
    let mut agent = agent(Arc::new(keyless(&server)), echo.clone());
    let result = agent.run("Echo 'from text'.").await;

    assert_eq!(result.exit, ExitReason::EndTurn, "{:?}", result.error);
    assert_eq!(result.output, "The tool said: echo: from text");
    assert_eq!(
        *echo.calls.lock().unwrap(),
        vec![json!({"text": "from text"})]
    );
    let call = agent.new_messages(&result)[1]
        .tool_calls()
        .next()
        .unwrap()
        .clone();
    assert!(call.parsed_from_text);

    // The call goes back natively and is cut out of the text, so the model sees it once.
    let mut second = server.requests()[1].body.clone();
    let id = second["messages"][2]["tool_calls"][0]["id"].take();
    assert_eq!(id, json!(call.id));
    assert_eq!(second["messages"][3]["tool_call_id"].take(), json!(call.id));
    assert_expected("compat_text_call_second_request", &second);
}

#[tokio::test]
async fn inline_think_tags_become_thinking() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text("<think>Plan: answer with 4.</think>\n\nIt is 4.").with_chunk_chars(3));
    let got = ask(&keyless(&server), "2+2?").await;
    assert_eq!(got.error, None);
    let thinking: String = got
        .events
        .iter()
        .filter_map(|e| match e {
            ModelEvent::ThinkingDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(thinking, "Plan: answer with 4.");
    assert_eq!(got.text(), "It is 4.");
    assert_eq!(
        got.events.last(),
        Some(&ModelEvent::Stop(StopReason::EndTurn))
    );
}
