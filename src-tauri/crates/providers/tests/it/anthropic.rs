//! Anthropic Messages API: documented streams, whole request bodies, a tool-using
//! conversation through the kernel loop, and the thinking round trip.

use std::sync::Arc;

use paddock_core::ModelEvent;
use paddock_fake_model::{FakeServer, Reply};
use paddock_protocol::{ContentBlock, ExitReason, Message, Role, StopReason, TokenUsage, ToolCall};
use paddock_providers::{ProviderConfig, ProviderKind};
use serde_json::json;

use crate::support::*;

#[tokio::test]
async fn plays_the_documented_basic_stream() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::raw_sse(fixture("anthropic_basic.sse")));
    let got = ask(&provider(ProviderKind::Anthropic, &server), "Hello").await;
    assert_eq!(got.error, None);
    assert_eq!(
        got.events,
        vec![
            ModelEvent::Usage(TokenUsage::new(25, 1)),
            ModelEvent::TextDelta("Hello".into()),
            ModelEvent::TextDelta("!".into()),
            ModelEvent::Usage(TokenUsage::new(0, 14)),
            ModelEvent::Stop(StopReason::EndTurn),
        ]
    );
}

#[tokio::test]
async fn assembles_the_documented_tool_use_stream() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::raw_sse(fixture("anthropic_tool_use.sse")));
    let got = ask(&provider(ProviderKind::Anthropic, &server), "Weather?").await;
    assert_eq!(got.error, None);
    assert_eq!(
        got.text(),
        "Okay, let's check the weather for San Francisco, CA:"
    );
    let tail = &got.events[got.events.len() - 3..];
    assert_eq!(
        tail,
        &[
            ModelEvent::ToolCall(ToolCall {
                id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6".into(),
                name: "get_weather".into(),
                input: json!({"location": "San Francisco, CA", "unit": "fahrenheit"}),
                parsed_from_text: false,
            }),
            ModelEvent::Usage(TokenUsage::new(0, 87)),
            ModelEvent::Stop(StopReason::ToolUse),
        ]
    );
}

#[tokio::test]
async fn streams_documented_thinking_with_its_signature() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::raw_sse(fixture("anthropic_thinking.sse")));
    let got = ask(&provider(ProviderKind::Anthropic, &server), "GCD?").await;
    assert_eq!(got.error, None);
    assert_eq!(
        got.events,
        vec![
            ModelEvent::ThinkingDelta(
                "I need to find the GCD of 1071 and 462 using the Euclidean algorithm.\n\n1071 = 2 × 462 + 147".into()
            ),
            ModelEvent::ThinkingDelta("\n462 = 3 × 147 + 21\n147 = 7 × 21 + 0\n\nSo GCD(1071, 462) = 21".into()),
            ModelEvent::ThinkingSignature("EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds".into()),
            ModelEvent::TextDelta("The greatest common divisor of 1071 and 462 is **21**.".into()),
            ModelEvent::Stop(StopReason::EndTurn),
        ]
    );
}

#[tokio::test]
async fn keeps_redacted_thinking_and_counts_cached_input() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::raw_sse(fixture("anthropic_redacted.sse")));
    let got = ask(&provider(ProviderKind::Anthropic, &server), "x").await;
    assert_eq!(got.error, None);
    assert!(matches!(&got.events[1], ModelEvent::RedactedThinking(d) if d.starts_with("EmwKAhgB")));
    let usage = got
        .events
        .iter()
        .fold(TokenUsage::default(), |acc, e| match e {
            ModelEvent::Usage(u) => acc + *u,
            _ => acc,
        });
    // Input counts cache writes and reads, the cache reads are also said on their own;
    // repeated cumulative counts are not added twice.
    assert_eq!(
        usage,
        TokenUsage::new(1110, 7)
            .with_cache_read(1000)
            .with_cache_write(100)
    );
}

#[tokio::test]
async fn sends_the_documented_headers_and_a_whole_request_body() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text("ok"));
    let cfg = config(ProviderKind::Anthropic, &server).with_thinking_budget(2048);
    let provider = paddock_providers::Provider::new(cfg).unwrap();
    let got = ask(&provider, "Say ok").await;
    assert_eq!(got.error, None);
    let req = &server.requests()[0];
    assert_eq!(req.path, "/v1/messages");
    assert_eq!(req.header("x-api-key"), Some(KEY));
    assert_eq!(req.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(req.header("content-type"), Some("application/json"));
    assert_eq!(req.header("authorization"), None);
    assert_expected("anthropic_first_request", &req.body);
}

#[tokio::test]
async fn runs_a_tool_conversation_and_sends_thinking_back() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::default()
            .with_thinking("The user wants an echo.", "sig-abc-123")
            .with_text("Echoing now.")
            .with_tool_call(Some("toolu_01"), "echo", json!({"text": "ping"}))
            .with_usage(100, 20),
        Reply::text("It said: echo: ping").with_usage(150, 10),
    ]);
    let echo = EchoTool::new();
    let model = Arc::new(provider(ProviderKind::Anthropic, &server));
    let mut agent = agent(model, echo.clone());
    let result = agent.run("Echo ping, please.").await;

    assert_eq!(result.exit, ExitReason::EndTurn, "{:?}", result.error);
    assert_eq!(result.output, "It said: echo: ping");
    assert_eq!(result.turns, 2);
    assert_eq!(result.usage, TokenUsage::new(250, 30));
    assert_eq!(*echo.calls.lock().unwrap(), vec![json!({"text": "ping"})]);
    let assistant = &agent.new_messages(&result)[1];
    assert_eq!(assistant.role, Role::Assistant);
    assert_eq!(
        assistant.content[0],
        ContentBlock::Thinking {
            thinking: "The user wants an echo.".into(),
            signature: Some("sig-abc-123".into()),
        }
    );

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    // The second call carries the signed thinking block back, unchanged, before the call.
    assert_expected("anthropic_second_request", &requests[1].body);
    assert_eq!(server.pending(), 0);
}

#[tokio::test]
async fn replays_a_conversation_from_history_with_redacted_thinking() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text("fine"));
    let history = vec![
        Message::user_text("first"),
        Message {
            role: Role::Assistant,
            content: vec![
                ContentBlock::RedactedThinking {
                    data: "opaque==".into(),
                },
                ContentBlock::Text {
                    text: "answer".into(),
                },
            ],
        },
        Message::user_text("second"),
    ];
    let got = drain(&provider(ProviderKind::Anthropic, &server), &history, &[]).await;
    assert_eq!(got.error, None);
    let body = &server.requests()[0].body;
    assert_eq!(
        body["messages"][1],
        json!({"role": "assistant", "content": [
            {"type": "redacted_thinking", "data": "opaque=="},
            {"type": "text", "text": "answer"}
        ]})
    );
    assert!(body.get("tools").is_none());
}

#[tokio::test]
async fn a_missing_key_is_refused_before_any_request() {
    let server = FakeServer::start().await.unwrap();
    let cfg = ProviderConfig::new(ProviderKind::Anthropic).with_base_url(server.url());
    let err = paddock_providers::Provider::new(cfg).unwrap_err();
    assert_eq!(err.kind, paddock_protocol::ErrorKind::Auth);
    assert!(err.message.contains("ANTHROPIC_API_KEY"), "{}", err.message);
    assert!(server.requests().is_empty());
}
