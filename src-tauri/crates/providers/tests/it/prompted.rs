//! Servers that refuse the `tools` parameter (issue 41): the call is asked again once with
//! the tools described in the system prompt, the model's call read from its text, and the
//! mode remembered for the connection; `toolCalling` forces either mode. Also what small
//! models do to a reply: calls held back from the answer's text, JSON cut short, loops.

use std::sync::Arc;
use std::time::Duration;

use paddock_core::protocol::{AgentEvent, ExitReason};
use paddock_core::{CollectSink, ModelEvent};
use paddock_fake_model::{FakeServer, Outcome, Reply, ToolRefusal};
use paddock_providers::{Provider, ProviderConfig, ProviderKind, ToolCalling};
use serde_json::{Value, json};

use crate::support::{EchoTool, agent, ask, fast_retry};

fn local(server: &FakeServer, mode: ToolCalling) -> Provider {
    let cfg = ProviderConfig::new(ProviderKind::OpenAiCompatible)
        .with_base_url(server.url())
        .with_retry(fast_retry())
        .with_tool_calling(mode);
    Provider::new(cfg).unwrap()
}

const CALL: &str = "I'll echo it.\n<tool_call>\n{\"name\": \"echo\", \"arguments\": {\"text\": \"hi\"}}\n</tool_call>";

fn offers_tools(body: &Value) -> bool {
    body.get("tools")
        .and_then(Value::as_array)
        .is_some_and(|t| !t.is_empty())
}

fn system_of(body: &Value) -> String {
    body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Shown able to fail: before prompted mode each refusal ended the run (the llama.cpp one
/// after four attempts), with no call made.
#[tokio::test]
async fn each_known_refusal_is_met_with_the_tools_in_the_prompt() {
    let refusals = [
        ToolRefusal::llama_cpp_without_jinja(),
        ToolRefusal::ollama("gemma:2b"),
        ToolRefusal::vllm_without_parser(),
        ToolRefusal::unknown_field(),
    ];
    for refusal in refusals {
        let status = refusal.status;
        let server = FakeServer::start().await.unwrap();
        server.set_refuse_tools(Some(refusal));
        server.push_all([Reply::text(CALL), Reply::text("It said: echo: hi")]);
        let provider = local(&server, ToolCalling::Auto);
        let echo = EchoTool::new();
        let events = CollectSink::new();
        let mut agent = agent(Arc::new(provider.clone()), echo.clone()).with_events(events.clone());
        let r = agent.run("Echo hi.").await;
        assert_eq!(r.exit, ExitReason::EndTurn, "{status}: {:?}", r.error);
        assert_eq!(r.output, "It said: echo: hi");
        assert_eq!(*echo.calls.lock().unwrap(), vec![json!({"text": "hi"})]);
        let call = agent.new_messages(&r)[1]
            .tool_calls()
            .next()
            .unwrap()
            .clone();
        assert!(call.parsed_from_text, "a prompted call carries the badge");

        let reqs = server.model_requests();
        let statuses: Vec<u16> = reqs.iter().map(|r| r.status).collect();
        assert_eq!(
            statuses,
            vec![status, 200, 200],
            "refused once, never retried"
        );
        assert!(offers_tools(&reqs[0].body));
        for later in &reqs[1..] {
            assert!(!offers_tools(&later.body));
            let system = system_of(&later.body);
            assert!(system.starts_with("You are terse.\n\n# Tools"), "{system}");
            assert!(system.contains("\"name\":\"echo\""), "{system}");
        }
        // The call and its result travel back as text the model was trained on.
        let second = reqs[2].body["messages"].to_string();
        assert!(second.contains("<tool_call>") && second.contains("<tool_response>"));
        let said = events.events().into_iter().any(|e| {
            matches!(e, AgentEvent::Warning { message, .. }
                if message.contains("refused the tools parameter")
                    && message.contains("prompted tool calls"))
        });
        assert!(said, "the switch is said in the transcript");
        assert!(provider.prompts_tools());
    }
}

/// Shown able to fail: without the remembered mode every call would be refused first.
#[tokio::test]
async fn the_mode_is_remembered_for_the_connection() {
    let server = FakeServer::start().await.unwrap();
    server.set_refuse_tools(Some(ToolRefusal::llama_cpp_without_jinja()));
    server.push_all([
        Reply::text("Nothing to do."),
        Reply::text(CALL),
        Reply::text("done"),
    ]);
    let provider = local(&server, ToolCalling::Auto);
    assert!(!provider.prompts_tools());
    let first = ask(&provider, "hello").await;
    assert_eq!(first.error, None);
    // A clone (a teammate, the next run) asks prompted at once.
    let mut agent = agent(Arc::new(provider.clone()), EchoTool::new());
    let r = agent.run("Echo hi.").await;
    assert_eq!(r.exit, ExitReason::EndTurn, "{:?}", r.error);
    let reqs = server.model_requests();
    assert_eq!(reqs.len(), 4);
    assert_eq!(reqs[0].status, 500);
    assert!(
        reqs[1..]
            .iter()
            .all(|r| !offers_tools(&r.body) && r.status == 200)
    );
}

/// Shown able to fail: the refusal was a retryable 500 (four attempts, no hint).
#[tokio::test]
async fn native_mode_surfaces_a_refusal_at_once_with_its_fix() {
    let server = FakeServer::start().await.unwrap();
    server.set_refuse_tools(Some(ToolRefusal::llama_cpp_without_jinja()));
    let got = ask(&local(&server, ToolCalling::Native), "hello").await;
    let err = got.error.unwrap();
    assert!(
        err.message.contains("tools param requires --jinja flag")
            && err.message.contains("start llama-server with --jinja")
            && !err.message.contains("attempts"),
        "{}",
        err.message
    );
    assert_eq!(server.model_requests().len(), 1);
}

#[tokio::test]
async fn prompted_mode_never_sends_the_parameter() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text(CALL));
    let got = ask(&local(&server, ToolCalling::Prompted), "echo hi").await;
    assert_eq!(got.error, None);
    let reqs = server.model_requests();
    assert_eq!(reqs.len(), 1);
    assert!(!offers_tools(&reqs[0].body));
    assert!(system_of(&reqs[0].body).contains("<tools>"));
    assert_eq!(reqs[0].body["max_tokens"], json!(256));
}

/// Shown able to fail: before the holdback every piece of the call streamed as answer
/// text (and the CLI printed it as the answer).
#[tokio::test]
async fn a_recovered_call_is_not_shown_as_answer_text() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text(CALL).with_chunk_chars(3));
    let got = ask(&local(&server, ToolCalling::Auto), "echo hi").await;
    assert_eq!(got.error, None);
    assert_eq!(got.text(), "I'll echo it.");
    let calls: Vec<_> = got
        .events
        .iter()
        .filter(|e| matches!(e, ModelEvent::ToolCall(c) if c.parsed_from_text))
        .collect();
    assert_eq!(calls.len(), 1);
}

/// Shown able to fail: a call missing its last brace ran with `{}` ("missing field").
#[tokio::test]
async fn a_call_cut_short_is_closed_and_one_broken_otherwise_says_so() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::text(
            "<tool_call>\n{\"name\": \"echo\", \"arguments\": {\"text\": \"hi\"}\n</tool_call>",
        ),
        Reply::text(
            "<tool_call>{\"name\": \"echo\", \"arguments\": {\"text\" \"hi\"}}</tool_call>",
        ),
        Reply::text("ok"),
    ]);
    let echo = EchoTool::new();
    let mut agent = agent(Arc::new(local(&server, ToolCalling::Auto)), echo.clone());
    let r = agent.run("Echo hi.").await;
    assert_eq!(r.exit, ExitReason::EndTurn, "{:?}", r.error);
    let calls = echo.calls.lock().unwrap().clone();
    assert_eq!(calls[0], json!({"text": "hi"}));
    // Not `{}`: the tool gets the arguments as written (a typed tool then answers that
    // they are not a JSON object, see paddock-core's typed tests).
    assert!(
        calls[1]
            .as_str()
            .is_some_and(|raw| raw.contains("\"text\" \"hi\"")),
        "{}",
        calls[1]
    );
}

/// Shown able to fail: without the guard the whole reply streamed to its end and each of
/// its 60 calls ran.
#[tokio::test]
async fn a_reply_going_round_in_circles_is_cut() {
    let server = FakeServer::start().await.unwrap();
    let looping = format!("{CALL}\n").repeat(60);
    server.push(Reply::text(looping).with_chunk_chars(40).with_drip_ms(2));
    let got = ask(&local(&server, ToolCalling::Auto), "echo hi").await;
    assert_eq!(got.error, None);
    let calls = got
        .events
        .iter()
        .filter(|e| matches!(e, ModelEvent::ToolCall(_)))
        .count();
    assert_eq!(calls, 1, "the repeated call runs once");
    assert!(got.events.iter().any(
        |e| matches!(e, ModelEvent::Notice(n) if n.contains("kept writing the same few lines"))
    ));
    let closed = server.wait_until_closed(0, Duration::from_secs(5)).await;
    assert_eq!(
        closed,
        Some(Outcome::ClientClosed),
        "the stream was dropped early"
    );
}
