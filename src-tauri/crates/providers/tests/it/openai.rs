//! OpenAI Chat Completions: documented streams, tool calls assembled by index, whole
//! request bodies and a tool-using conversation through the kernel loop.

use std::sync::Arc;

use paddock_core::ModelEvent;
use paddock_fake_model::{FakeServer, Reply};
use paddock_protocol::{
    ContentBlock, ExitReason, Message, Role, StopReason, TokenUsage, ToolCall, ToolResult,
};
use paddock_providers::ProviderKind;
use serde_json::json;

use crate::support::*;

#[tokio::test]
async fn plays_the_documented_text_stream() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::raw_sse(fixture("openai_text.sse")));
    let got = ask(&provider(ProviderKind::OpenAi, &server), "Hello").await;
    assert_eq!(got.error, None);
    assert_eq!(
        got.events,
        vec![
            ModelEvent::TextDelta("Hello".into()),
            ModelEvent::TextDelta("!".into()),
            ModelEvent::Usage(TokenUsage::new(9, 2)),
            ModelEvent::Stop(StopReason::EndTurn),
        ]
    );
}

#[tokio::test]
async fn assembles_interleaved_tool_calls_by_index() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::raw_sse(fixture("openai_tool_calls.sse")));
    let got = ask(
        &provider(ProviderKind::OpenAi, &server),
        "Weather and time?",
    )
    .await;
    assert_eq!(got.error, None);
    assert_eq!(
        got.events,
        vec![
            ModelEvent::ToolCall(ToolCall {
                id: "call_DdmO9pD3xa9XTPNJ32zg2hcA".into(),
                name: "get_weather".into(),
                input: json!({"location": "Paris, France"}),
                parsed_from_text: false,
            }),
            ModelEvent::ToolCall(ToolCall {
                id: "call_ABC1fW2pQ3xYz".into(),
                name: "get_time".into(),
                input: json!({"tz": "Europe/Paris"}),
                parsed_from_text: false,
            }),
            ModelEvent::Usage(TokenUsage::new(82, 41)),
            ModelEvent::Stop(StopReason::ToolUse),
        ]
    );
}

#[tokio::test]
async fn sends_a_bearer_key_and_a_whole_request_body() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text("ok").with_usage(5, 1));
    let history = vec![
        Message::user_text("Use echo."),
        Message {
            role: Role::Assistant,
            content: vec![
                ContentBlock::Thinking {
                    thinking: "not sent back".into(),
                    signature: None,
                },
                ContentBlock::ToolCall(
                    ToolCall {
                        id: "call_1".into(),
                        name: "echo".into(),
                        input: json!({"text": "a"}),
                        parsed_from_text: false,
                    }
                    .into(),
                ),
                ContentBlock::ToolCall(
                    ToolCall {
                        id: "call_2".into(),
                        name: "echo".into(),
                        input: json!("{not json"),
                        parsed_from_text: false,
                    }
                    .into(),
                ),
            ],
        },
        Message {
            role: Role::User,
            content: vec![
                ContentBlock::ToolResult(ToolResult {
                    tool_call_id: "call_1".into(),
                    content: "echo: a".into(),
                    is_error: false,
                }),
                ContentBlock::ToolResult(ToolResult {
                    tool_call_id: "call_2".into(),
                    content: "invalid input".into(),
                    is_error: true,
                }),
                ContentBlock::Text {
                    text: "You seem stuck.".into(),
                },
            ],
        },
    ];
    let got = drain(
        &provider(ProviderKind::OpenAi, &server),
        &history,
        &[echo_spec()],
    )
    .await;
    assert_eq!(got.error, None);
    let req = &server.requests()[0];
    assert_eq!(req.path, "/v1/chat/completions");
    assert_eq!(
        req.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(req.header("x-api-key"), None);
    assert_expected("openai_request", &req.body);
}

#[tokio::test]
async fn runs_a_tool_conversation_through_the_loop() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::default()
            .with_text("Let me echo.")
            .with_tool_call(Some("call_echo_1"), "echo", json!({"text": "hello world"}))
            .with_chunk_chars(3)
            .with_usage(40, 12),
        Reply::text("Done: echo: hello world").with_usage(60, 6),
    ]);
    let echo = EchoTool::new();
    let model = Arc::new(provider(ProviderKind::OpenAi, &server));
    let mut agent = agent(model, echo.clone());
    let result = agent.run("Echo hello world.").await;

    assert_eq!(result.exit, ExitReason::EndTurn, "{:?}", result.error);
    assert_eq!(result.output, "Done: echo: hello world");
    assert_eq!(result.usage, TokenUsage::new(100, 18));
    assert_eq!(
        *echo.calls.lock().unwrap(),
        vec![json!({"text": "hello world"})]
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_expected("openai_second_request", &requests[1].body);
}

#[tokio::test]
async fn reasoning_content_becomes_thinking() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text("42").with_thinking("six times seven", ""));
    let got = ask(&provider(ProviderKind::OpenAi, &server), "?").await;
    assert_eq!(got.error, None);
    let thinking: String = got
        .events
        .iter()
        .filter_map(|e| match e {
            ModelEvent::ThinkingDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(thinking, "six times seven");
    assert_eq!(got.text(), "42");
}

#[tokio::test]
async fn length_and_content_filter_map_to_stop_reasons() {
    for (finish, want) in [
        ("length", StopReason::MaxTokens),
        ("content_filter", StopReason::Refusal),
    ] {
        let server = FakeServer::start().await.unwrap();
        server.push(Reply::text("cut").with_stop_reason(finish));
        let got = ask(&provider(ProviderKind::OpenAi, &server), "?").await;
        assert_eq!(got.events.last(), Some(&ModelEvent::Stop(want)), "{finish}");
    }
}
