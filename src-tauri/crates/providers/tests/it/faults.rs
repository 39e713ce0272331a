//! Every injected fault is either retried (and the call succeeds) or surfaced with a
//! classified, actionable error. Counts of requests the server saw prove which.

use std::sync::Arc;
use std::time::Duration;

use paddock_core::{FnSink, Model, ModelEvent, ModelRequest};
use paddock_fake_model::{FakeServer, Fault, Outcome, Reply};
use paddock_protocol::{AgentEvent, ErrorKind, ExitReason, Message, Retry};
use paddock_providers::{Provider, ProviderConfig, ProviderKind};
use serde_json::json;

use crate::support::*;

const BOTH: [ProviderKind; 2] = [ProviderKind::Anthropic, ProviderKind::OpenAi];

#[tokio::test]
async fn rate_limits_wait_exactly_as_long_as_retry_after_says() {
    for kind in BOTH {
        let server = FakeServer::start().await.unwrap();
        server.push_all([Reply::status(429, Some("1")), Reply::text("after the wait")]);
        let (provider, notices) = provider_with_notices(kind, &server);
        let got = ask(&provider, "hi").await;
        assert_eq!(got.error, None, "{kind}");
        assert_eq!(got.text(), "after the wait");
        let notices = notices.lock().unwrap().clone();
        assert_eq!(notices.len(), 1);
        assert_eq!(
            notices[0].delay,
            Duration::from_secs(1),
            "Retry-After honoured"
        );
        assert_eq!(notices[0].error.kind, ErrorKind::RateLimited);
        // The stream itself says why it is waiting, before the answer, and which attempt
        // comes next as data (a UI shows one call's retries as one line).
        let said: Vec<_> = got
            .events
            .iter()
            .filter_map(|e| match e {
                ModelEvent::Retrying { message, retry } => Some((message.as_str(), *retry)),
                ModelEvent::Notice(n) => panic!("{kind}: a retry said as a plain notice: {n}"),
                _ => None,
            })
            .collect();
        assert_eq!(said.len(), 1, "{kind}: {said:?}");
        assert!(
            said[0].0.contains("retrying in 1 s (attempt 2 of 3)"),
            "{}",
            said[0].0
        );
        assert_eq!(
            said[0].1,
            Retry {
                attempt: 2,
                attempts: 3
            }
        );
        assert!(
            matches!(got.events[0], ModelEvent::Retrying { .. }),
            "{kind}"
        );
        let reqs = server.requests();
        assert_eq!(reqs.len(), 2);
        assert!(
            reqs[1].received_ms - reqs[0].received_ms >= 1000,
            "{kind} retried too early"
        );
    }
}

#[tokio::test]
async fn server_errors_back_off_and_retry() {
    for kind in BOTH {
        let server = FakeServer::start().await.unwrap();
        server.push_all([
            Reply::status(500, None),
            Reply::status(503, None),
            Reply::text("ok"),
        ]);
        let (provider, notices) = provider_with_notices(kind, &server);
        let got = ask(&provider, "hi").await;
        assert_eq!(got.error, None, "{kind}");
        let notices = notices.lock().unwrap().clone();
        assert_eq!(
            notices.iter().map(|n| n.attempt).collect::<Vec<_>>(),
            vec![1, 2]
        );
        assert!(notices.iter().all(|n| n.error.kind == ErrorKind::Server));
        assert!(
            notices.iter().all(|n| n.delay <= Duration::from_millis(20)),
            "capped backoff"
        );
        assert_eq!(server.requests().len(), 3);
    }
}

#[tokio::test]
async fn retries_are_bounded() {
    let server = FakeServer::start().await.unwrap();
    server.push_all((0..5).map(|_| Reply::status(529, None)));
    let got = ask(&provider(ProviderKind::Anthropic, &server), "hi").await;
    let err = got.error.unwrap();
    assert_eq!(err.kind, ErrorKind::Server);
    assert!(err.message.contains("HTTP 529"), "{}", err.message);
    assert!(
        err.message.contains("gave up after 3 attempts"),
        "{}",
        err.message
    );
    assert_eq!(server.requests().len(), 3, "max_attempts is 3");
    assert_eq!(server.pending(), 2);
}

#[tokio::test]
async fn a_retry_after_too_long_to_wait_is_surfaced_with_its_delay() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([Reply::status(429, Some("3600")), Reply::text("never")]);
    let got = ask(&provider(ProviderKind::OpenAi, &server), "hi").await;
    let err = got.error.unwrap();
    assert_eq!(err.kind, ErrorKind::RateLimited);
    assert_eq!(err.retry_after, Some(Duration::from_secs(3600)));
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn client_errors_are_not_retried_and_say_what_to_do() {
    let cases = [
        (401, ErrorKind::Auth, "ANTHROPIC_API_KEY"),
        (403, ErrorKind::Auth, "HTTP 403"),
        (404, ErrorKind::InvalidRequest, "HTTP 404"),
        (400, ErrorKind::InvalidRequest, "HTTP 400"),
    ];
    for (status, kind, hint) in cases {
        let server = FakeServer::start().await.unwrap();
        server.push_all([Reply::status(status, None), Reply::text("never")]);
        let got = ask(&provider(ProviderKind::Anthropic, &server), "hi").await;
        let err = got.error.unwrap();
        assert_eq!(err.kind, kind, "{status}");
        assert!(err.message.contains(hint), "{status}: {}", err.message);
        assert_eq!(server.requests().len(), 1, "{status} must not be retried");
    }
}

#[tokio::test]
async fn context_overflow_is_its_own_kind() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::fault(Fault::Status {
        status: 400,
        retry_after: None,
        body: Some(json!({"error": {"message": "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.", "type": "invalid_request_error", "code": "context_length_exceeded"}})),
    }));
    let got = ask(&provider(ProviderKind::OpenAi, &server), "hi").await;
    let err = got.error.unwrap();
    assert_eq!(err.kind, ErrorKind::ContextTooLong);
    assert!(
        err.message.contains("maximum context length is 8192"),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn a_key_echoed_by_the_server_never_reaches_the_error() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::fault(Fault::Status {
        status: 401,
        retry_after: None,
        body: Some(json!({"error": {"message": format!("Incorrect API key provided: {KEY}."), "type": "invalid_request_error", "code": "invalid_api_key"}})),
    }));
    let provider = provider(ProviderKind::OpenAi, &server);
    let got = ask(&provider, "hi").await;
    let err = got.error.unwrap();
    assert_eq!(err.kind, ErrorKind::Auth);
    assert!(
        err.message
            .contains("Incorrect API key provided: [redacted]"),
        "{}",
        err.message
    );
    for shown in [
        err.message.clone(),
        format!("{err:?}"),
        format!("{provider:?}"),
        format!("{:?}", config(ProviderKind::OpenAi, &server)),
    ] {
        assert!(!shown.contains(KEY), "key leaked: {shown}");
    }
}

#[tokio::test]
async fn a_connection_dropped_before_any_output_is_retried() {
    for kind in BOTH {
        let server = FakeServer::start().await.unwrap();
        // Anthropic's first event carries only usage: a drop there is still "before output".
        let after = if kind == ProviderKind::Anthropic {
            1
        } else {
            0
        };
        server.push_all([
            Reply::text("lost").with_fault(Fault::Drop { after }),
            Reply::text("second try"),
        ]);
        let (provider, notices) = provider_with_notices(kind, &server);
        let got = ask(&provider, "hi").await;
        assert_eq!(got.error, None, "{kind}");
        assert_eq!(got.text(), "second try");
        assert_eq!(notices.lock().unwrap()[0].error.kind, ErrorKind::Network);
        assert_eq!(server.requests()[0].outcome, Outcome::ServerDropped);
        assert_eq!(server.requests().len(), 2);
    }
}

#[tokio::test]
async fn a_connection_dropped_mid_output_is_surfaced_not_repeated() {
    for kind in BOTH {
        let server = FakeServer::start().await.unwrap();
        server.push_all([
            Reply::text("The first part, then")
                .with_chunk_chars(5)
                .with_fault(Fault::Drop { after: 5 }),
            Reply::text("must not be used"),
        ]);
        let got = ask(&provider(kind, &server), "hi").await;
        let err = got.error.clone().unwrap();
        assert_eq!(err.kind, ErrorKind::Network, "{kind}");
        assert!(err.message.contains("not retried"), "{}", err.message);
        assert!(
            !got.text().is_empty(),
            "{kind}: text before the drop is delivered"
        );
        assert!("The first part, then".starts_with(&got.text()));
        assert_eq!(server.requests().len(), 1);
    }
}

#[tokio::test]
async fn malformed_sse_is_an_invalid_response() {
    for kind in BOTH {
        let server = FakeServer::start().await.unwrap();
        server.push_all([
            Reply::text("hello there").with_fault(Fault::Malformed { after: 2 }),
            Reply::text("x"),
        ]);
        let got = ask(&provider(kind, &server), "hi").await;
        let err = got.error.unwrap();
        assert_eq!(err.kind, ErrorKind::InvalidResponse, "{kind}");
        assert!(err.message.contains("not JSON"), "{}", err.message);
        assert_eq!(server.requests().len(), 1, "a format error is not retried");
    }
}

#[tokio::test]
async fn in_stream_errors_retry_before_output_and_surface_after() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::text("x").with_fault(Fault::StreamError {
            after: 1,
            error_type: "overloaded_error".into(),
            message: "Overloaded".into(),
        }),
        Reply::text("recovered"),
    ]);
    let got = ask(&provider(ProviderKind::Anthropic, &server), "hi").await;
    assert_eq!(got.error, None);
    assert_eq!(got.text(), "recovered");

    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::text("some words").with_fault(Fault::StreamError {
            after: 4,
            error_type: "server_error".into(),
            message: "The server had an error".into(),
        }),
        Reply::text("unused"),
    ]);
    let got = ask(&provider(ProviderKind::OpenAi, &server), "hi").await;
    let err = got.error.unwrap();
    assert_eq!(err.kind, ErrorKind::Server);
    assert!(
        err.message.contains("The server had an error"),
        "{}",
        err.message
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_slow_drip_within_the_idle_timeout_completes() {
    let server = FakeServer::start().await.unwrap();
    // About 16 events 120 ms apart: twice the 1 s idle timeout in total, never 1 s in a gap.
    server.push(
        Reply::text("drip drip drip drip drip")
            .with_chunk_chars(2)
            .with_drip_ms(120),
    );
    let cfg = config(ProviderKind::OpenAi, &server)
        .with_timeouts(Duration::from_secs(2), Duration::from_secs(1));
    let got = ask(&Provider::new(cfg).unwrap(), "hi").await;
    assert_eq!(got.error, None);
    assert_eq!(got.text(), "drip drip drip drip drip");
    assert_eq!(server.requests().len(), 1, "no timeout, no retry");
}

#[tokio::test]
async fn a_server_that_goes_quiet_times_out() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::text("partial answer").with_fault(Fault::Hang { after: 4 }),
        Reply::text("unused"),
    ]);
    let cfg = config(ProviderKind::Anthropic, &server)
        .with_timeouts(Duration::from_secs(2), Duration::from_millis(300));
    let got = ask(&Provider::new(cfg).unwrap(), "hi").await;
    let err = got.error.unwrap();
    assert_eq!(err.kind, ErrorKind::Network);
    assert!(err.message.contains("sent nothing for"), "{}", err.message);
    assert_eq!(
        server.wait_until_closed(0, Duration::from_secs(5)).await,
        Some(Outcome::ClientClosed),
        "the hung connection is closed by the client"
    );
}

#[tokio::test]
async fn a_silent_start_is_retried() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::text("x").with_fault(Fault::Hang { after: 0 }),
        Reply::text("awake"),
    ]);
    let cfg = config(ProviderKind::OpenAi, &server)
        .with_timeouts(Duration::from_secs(2), Duration::from_millis(500));
    let got = ask(&Provider::new(cfg).unwrap(), "hi").await;
    assert_eq!(got.error, None);
    assert_eq!(got.text(), "awake");
}

#[tokio::test]
async fn nothing_listening_is_a_network_error_after_retries() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let cfg = ProviderConfig::new(ProviderKind::OpenAiCompatible)
        .with_base_url(format!("http://127.0.0.1:{port}/v1"))
        .with_retry(fast_retry());
    let got = ask(&Provider::new(cfg).unwrap(), "hi").await;
    let err = got.error.unwrap();
    assert_eq!(err.kind, ErrorKind::Network);
    assert!(err.message.contains("could not connect"), "{}", err.message);
    assert!(
        err.message.contains("is the server running"),
        "{}",
        err.message
    );
    assert!(
        err.message.contains("gave up after 3 attempts"),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn dropping_the_stream_closes_the_connection_at_once() {
    for kind in BOTH {
        let server = FakeServer::start().await.unwrap();
        server.push(
            Reply::text("a very long answer that drips slowly")
                .with_chunk_chars(1)
                .with_drip_ms(100),
        );
        let provider = provider(kind, &server);
        let messages = [Message::user_text("hi")];
        let request = ModelRequest {
            model: "m",
            system: None,
            messages: &messages,
            tools: &[],
            max_output_tokens: None,
        };
        let mut stream = provider.stream(&request);
        use futures_util::StreamExt;
        loop {
            match stream.next().await.unwrap().unwrap() {
                ModelEvent::TextDelta(_) => break,
                _ => continue,
            }
        }
        drop(stream);
        assert_eq!(
            server.wait_until_closed(0, Duration::from_secs(3)).await,
            Some(Outcome::ClientClosed),
            "{kind}: the server saw the client hang up long before the stream's end"
        );
    }
}

#[tokio::test]
async fn cancelling_an_agent_mid_stream_stops_the_call() {
    let server = FakeServer::start().await.unwrap();
    server.push(
        Reply::text("Thinking out loud for a long while...")
            .with_chunk_chars(2)
            .with_drip_ms(100),
    );
    let echo = EchoTool::new();
    let model = Arc::new(provider(ProviderKind::Anthropic, &server));
    let agent = agent(model, echo);
    let handle = agent.handle();
    let sink = Arc::new(FnSink(move |e: AgentEvent| {
        if matches!(e, AgentEvent::TextDelta { .. }) {
            handle.cancel();
        }
    }));
    let mut agent = agent.with_events(sink);
    let result = tokio::time::timeout(Duration::from_secs(3), agent.run("talk"))
        .await
        .expect("cancel is prompt");
    assert_eq!(result.exit, ExitReason::Aborted);
    assert!(
        result.output.starts_with("Th"),
        "partial text kept: {:?}",
        result.output
    );
    assert_eq!(
        server.wait_until_closed(0, Duration::from_secs(3)).await,
        Some(Outcome::ClientClosed)
    );
    assert!(
        !agent
            .new_messages(&result)
            .iter()
            .any(|m| m.tool_calls().next().is_some())
    );
}
