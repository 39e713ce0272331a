//! Local servers and streamed tool calls: servers that refuse to stream a call with tools
//! (asked again unstreamed, once, and remembered), unstreamed answers decoded like
//! streams, tool calls streamed in odd pieces, and calls inside unclosed reasoning.

use paddock_core::ModelEvent;
use paddock_fake_model::{FakeServer, Fault, Quirks, Reply, StreamRefusal};
use paddock_protocol::{Message, StopReason, TokenUsage, ToolCall};
use serde_json::{Value, json};

use crate::support::*;

const NOTICE: &str = "the server does not stream tool calls; asking without streaming";

fn calls(events: &[ModelEvent]) -> Vec<&ToolCall> {
    events
        .iter()
        .filter_map(|e| match e {
            ModelEvent::ToolCall(c) => Some(c),
            _ => None,
        })
        .collect()
}

fn notices(events: &[ModelEvent]) -> Vec<&str> {
    events
        .iter()
        .filter_map(|e| match e {
            ModelEvent::Notice(n) => Some(n.as_str()),
            _ => None,
        })
        .collect()
}

fn streamed(server: &FakeServer) -> Vec<Value> {
    server
        .model_requests()
        .iter()
        .map(|r| r.body["stream"].clone())
        .collect()
}

#[tokio::test]
async fn a_refusal_is_met_once_with_an_unstreamed_request() {
    let server = FakeServer::start().await.unwrap();
    server.set_refuse_streaming_tools(Some(StreamRefusal::llama_cpp_python()));
    server.push(
        Reply::default()
            .with_text("Echoing.")
            .with_tool_call(Some("call_1"), "echo", json!({"text": "hi"}))
            .with_usage(12, 3),
    );
    let (provider, retries) =
        provider_with_notices(paddock_providers::ProviderKind::OpenAiCompatible, &server);
    assert!(provider.streams_tool_calls());
    let got = ask(&provider, "echo hi").await;
    assert_eq!(got.error, None);
    assert_eq!(got.events[0], ModelEvent::Notice(NOTICE.into()));
    assert_eq!(notices(&got.events), vec![NOTICE]);
    assert_eq!(got.text(), "Echoing.");
    let found = calls(&got.events);
    assert_eq!(found.len(), 1);
    assert_eq!(
        (
            found[0].id.as_str(),
            found[0].name.as_str(),
            &found[0].input
        ),
        ("call_1", "echo", &json!({"text": "hi"}))
    );
    assert!(!found[0].parsed_from_text);
    assert_eq!(
        &got.events[got.events.len() - 2..],
        &[
            ModelEvent::Usage(TokenUsage::new(12, 3)),
            ModelEvent::Stop(StopReason::ToolUse)
        ]
    );
    let reqs = server.model_requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!((reqs[0].status, reqs[1].status), (500, 200));
    assert_eq!(streamed(&server), vec![json!(true), json!(false)]);
    assert!(reqs[1].body.get("stream_options").is_none());
    assert_eq!(reqs[1].header("accept"), Some("application/json"));
    assert!(retries.lock().unwrap().is_empty(), "not a backoff retry");
    assert!(!provider.streams_tool_calls());
}

#[tokio::test]
async fn later_calls_with_tools_go_unstreamed_at_once_and_others_still_stream() {
    let server = FakeServer::start().await.unwrap();
    server.set_refuse_streaming_tools(Some(StreamRefusal::default()));
    server.push_all([
        Reply::tool_call("echo", json!({"text": "1"})),
        Reply::tool_call("echo", json!({"text": "2"})),
        Reply::text("no tools, streamed"),
    ]);
    let provider = provider(paddock_providers::ProviderKind::OpenAiCompatible, &server);
    let first = ask(&provider, "one").await;
    assert_eq!(notices(&first.events), vec![NOTICE]);
    // A clone shares what was learned: its call goes unstreamed directly.
    let clone = provider.clone();
    let second = ask(&clone, "two").await;
    assert_eq!(second.error, None);
    assert!(notices(&second.events).is_empty(), "{:?}", second.events);
    assert_eq!(calls(&second.events)[0].input, json!({"text": "2"}));
    let plain = drain(&clone, &[Message::user_text("three")], &[]).await;
    assert_eq!(plain.text(), "no tools, streamed");
    assert_eq!(
        streamed(&server),
        vec![json!(true), json!(false), json!(false), json!(true)]
    );
}

#[tokio::test]
async fn a_500_that_is_not_a_refusal_is_retried_as_a_stream() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::status(500, None),
        Reply::tool_call("echo", json!({"text": "after"})),
    ]);
    let (provider, retries) =
        provider_with_notices(paddock_providers::ProviderKind::OpenAiCompatible, &server);
    let got = ask(&provider, "x").await;
    assert_eq!(got.error, None);
    assert_eq!(calls(&got.events)[0].input, json!({"text": "after"}));
    assert!(!notices(&got.events).contains(&NOTICE));
    assert_eq!(
        retries.lock().unwrap().len(),
        1,
        "an ordinary backoff retry"
    );
    assert_eq!(streamed(&server), vec![json!(true), json!(true)]);
    assert!(provider.streams_tool_calls());
}

#[tokio::test]
async fn documented_refusals_are_recognised() {
    let cases = [
        // llama.cpp's llama-server before streamed tool calls.
        (
            500,
            json!({"error": {"code": 500, "message": "Cannot use tools with stream", "type": "server_error"}}),
        ),
        // llama-cpp-python, written out.
        (
            500,
            json!({"error": {"message": "Automatic streaming tool choice is not supported",
                             "type": "internal_server_error", "param": null, "code": null}}),
        ),
        // Ollama's proposed refusal, as a plain error string.
        (
            400,
            json!({"error": "streaming is not supported with tools"}),
        ),
        // A server that says so with a code.
        (
            400,
            json!({"error": {"message": "tools need a non-streamed request", "type": "unsupported_streaming_tools"}}),
        ),
    ];
    for (status, body) in cases {
        let server = FakeServer::start().await.unwrap();
        server.push_all([
            Reply::fault(Fault::Status {
                status,
                retry_after: None,
                body: Some(body.clone()),
            }),
            Reply::tool_call("echo", json!({"text": "ok"})),
        ]);
        let provider = provider(paddock_providers::ProviderKind::OpenAiCompatible, &server);
        let got = ask(&provider, "x").await;
        assert_eq!(got.error, None, "{body}");
        assert_eq!(notices(&got.events), vec![NOTICE], "{body}");
        assert_eq!(calls(&got.events).len(), 1, "{body}");
        assert_eq!(streamed(&server), vec![json!(true), json!(false)], "{body}");
    }
}

#[tokio::test]
async fn a_refusal_is_not_asked_twice_in_one_call() {
    let server = FakeServer::start().await.unwrap();
    let refusal = || {
        Reply::fault(Fault::Status {
            status: 500,
            retry_after: None,
            body: Some(
                json!({"error": {"code": 500, "message": "Cannot use tools with stream", "type": "server_error"}}),
            ),
        })
    };
    // The unstreamed request is refused too: from then on, ordinary retries.
    server.push_all([refusal(), refusal(), Reply::text("finally")]);
    let got = ask(
        &provider(paddock_providers::ProviderKind::OpenAiCompatible, &server),
        "x",
    )
    .await;
    assert_eq!(got.error, None);
    assert_eq!(got.text(), "finally");
    assert_eq!(
        notices(&got.events)
            .iter()
            .filter(|n| **n == NOTICE)
            .count(),
        1
    );
    assert_eq!(
        streamed(&server),
        vec![json!(true), json!(false), json!(false)]
    );
}

#[tokio::test]
async fn unstreamed_answers_carry_reasoning_text_calls_and_usage() {
    let server = FakeServer::start().await.unwrap();
    server.set_refuse_streaming_tools(Some(StreamRefusal::default()));
    server.push(
        Reply::text(
            "<tool_call>{\"name\": \"echo\", \"arguments\": {\"text\": \"t\"}}</tool_call>",
        )
        .with_thinking("must echo", "")
        .with_usage(7, 4),
    );
    let got = ask(
        &provider(paddock_providers::ProviderKind::OpenAiCompatible, &server),
        "x",
    )
    .await;
    assert_eq!(got.error, None);
    assert!(
        got.events
            .contains(&ModelEvent::ThinkingDelta("must echo".into()))
    );
    let found = calls(&got.events);
    assert_eq!(found.len(), 1);
    assert!(found[0].parsed_from_text);
    assert_eq!(found[0].input, json!({"text": "t"}));
    assert!(
        got.events
            .contains(&ModelEvent::Usage(TokenUsage::new(7, 4)))
    );
    assert_eq!(
        got.events.last(),
        Some(&ModelEvent::Stop(StopReason::ToolUse))
    );
}

#[tokio::test]
async fn a_dropped_unstreamed_answer_is_retried_unstreamed() {
    let server = FakeServer::start().await.unwrap();
    server.set_refuse_streaming_tools(Some(StreamRefusal::default()));
    server.push_all([
        Reply::tool_call("echo", json!({"text": "lost"})).with_fault(Fault::Drop { after: 0 }),
        Reply::tool_call("echo", json!({"text": "kept"})),
    ]);
    let got = ask(
        &provider(paddock_providers::ProviderKind::OpenAiCompatible, &server),
        "x",
    )
    .await;
    assert_eq!(got.error, None);
    assert_eq!(calls(&got.events).len(), 1);
    assert_eq!(calls(&got.events)[0].input, json!({"text": "kept"}));
    assert_eq!(
        streamed(&server),
        vec![json!(true), json!(false), json!(false)]
    );
}

#[tokio::test]
async fn tool_calls_streamed_in_odd_pieces_are_assembled() {
    for omit_ids in [false, true] {
        let server = FakeServer::start().await.unwrap();
        server.push(
            Reply::default()
                .with_tool_call(Some("c_a"), "echo", json!({"text": "first"}))
                .with_tool_call(Some("c_b"), "echo", json!({"text": "second", "n": 2}))
                .with_quirks(Quirks {
                    odd_tool_chunks: true,
                    omit_tool_call_ids: omit_ids,
                    ..Quirks::default()
                }),
        );
        let got = ask(
            &provider(paddock_providers::ProviderKind::OpenAiCompatible, &server),
            "x",
        )
        .await;
        assert_eq!(got.error, None);
        let found = calls(&got.events);
        assert_eq!(found.len(), 2, "omit_ids {omit_ids}: {found:?}");
        assert_eq!(found[0].input, json!({"text": "first"}));
        assert_eq!(found[1].input, json!({"text": "second", "n": 2}));
        assert!(found.iter().all(|c| c.name == "echo"));
        if !omit_ids {
            assert_eq!((found[0].id.as_str(), found[1].id.as_str()), ("c_a", "c_b"));
        }
    }
}

#[tokio::test]
async fn calls_inside_unclosed_reasoning_are_taken() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        // Inline reasoning that never closes.
        Reply::text("<think>I should echo.\n<tool_call>{\"name\": \"echo\", \"arguments\": {\"text\": \"inline\"}}</tool_call>")
            .with_chunk_chars(5),
        // Reasoning the server split out, with no answer after it.
        Reply::default().with_thinking(
            "Echo it.\n<tool_call>\n<function=echo>\n<parameter=text>\nsplit\n</parameter>\n</function>\n</tool_call>",
            "",
        ),
        // Reasoning that closed and an answer: a call deliberated about is not made.
        Reply::text("<think>maybe <tool_call>{\"name\": \"echo\", \"arguments\": {}}</tool_call></think>No need."),
    ]);
    let p = provider(paddock_providers::ProviderKind::OpenAiCompatible, &server);
    for want in [Some("inline"), Some("split"), None] {
        let got = ask(&p, "x").await;
        assert_eq!(got.error, None);
        let found = calls(&got.events);
        match want {
            Some(text) => {
                assert_eq!(found.len(), 1, "{:?}", got.events);
                assert!(found[0].parsed_from_text);
                assert_eq!(found[0].input, json!({ "text": text }));
                assert!(got.text().is_empty(), "the reasoning is not the answer");
            }
            None => {
                assert!(found.is_empty(), "{found:?}");
                assert_eq!(got.text(), "No need.");
            }
        }
    }
}
