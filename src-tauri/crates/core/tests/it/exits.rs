//! Every way a run ends, and what it leaves behind.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use paddock_core::protocol::{
    AgentEvent, ContentBlock, ErrorKind, ExitReason, Message, Pricing, Retry, Role, StopReason,
    TokenUsage,
};
use paddock_core::scripted::ScriptedTurn;
use paddock_core::{HistoryLog, LoopConfig};
use serde_json::json;

use paddock_core::testing::*;

#[tokio::test(start_paused = true)]
async fn end_turn_returns_the_answer_and_streams_events() {
    let mut h = harness(
        config_allowing(&["echo"]),
        vec![
            ScriptedTurn::new()
                .delta("Hel")
                .delta("lo")
                .usage(7, 3)
                .stop(StopReason::EndTurn),
        ],
    );
    let r = h.agent.run("hi").await;
    assert_eq!(r.exit, ExitReason::EndTurn);
    assert!(r.success);
    assert_eq!(r.output, "Hello");
    assert_eq!(r.turns, 1);
    assert_eq!(r.usage, TokenUsage::new(7, 3));
    // The context meter's reading comes before each model call; the stream is the rest.
    let all = h.events.events();
    assert!(
        matches!(all[2], AgentEvent::Context(c) if c.used > 0 && c.history > 0),
        "{:?}",
        all[2]
    );
    let events: Vec<AgentEvent> = all
        .into_iter()
        .filter(|e| !matches!(e, AgentEvent::Context(_)))
        .collect();
    assert!(matches!(events[0], AgentEvent::RunStarted { .. }));
    assert_eq!(events[1], AgentEvent::TurnStarted { turn: 1 });
    assert_eq!(events[2], AgentEvent::TextDelta { text: "Hel".into() });
    assert_eq!(events[3], AgentEvent::TextDelta { text: "lo".into() });
    assert!(events.contains(&AgentEvent::TurnFinished {
        turn: 1,
        stop_reason: StopReason::EndTurn
    }));
    assert_eq!(
        events.last(),
        Some(&AgentEvent::RunFinished {
            exit: ExitReason::EndTurn,
            turns: 1,
            usage: TokenUsage::new(7, 3),
            // No price given: unknown, never a guess.
            cost: Some(Pricing::Unknown.cost(&TokenUsage::new(7, 3))),
        })
    );
}

#[tokio::test(start_paused = true)]
async fn tool_round_trip_feeds_results_back() {
    let mut h = harness(
        config_allowing(&["echo"]),
        vec![
            ScriptedTurn::tools(&[("echo", json!({"text": "ping"}))]),
            ScriptedTurn::text("got pong"),
        ],
    );
    let r = h.agent.run("go").await;
    assert_eq!(r.exit, ExitReason::EndTurn);
    assert_eq!(r.output, "got pong");
    assert_paired(h.agent.new_messages(&r));
    // The second model call saw the tool result.
    let second = &h.model.requests()[1];
    let last = second.messages.last().unwrap();
    assert_eq!(last.role, Role::User);
    let result = last.tool_results().next().unwrap();
    assert_eq!(result.content, "ping");
    assert!(!result.is_error);
    assert_eq!(second.tools.len(), 1);
    assert_eq!(second.tools[0].name, "echo");
    let events = h.events.events();
    assert_eq!(
        count_events(&events, |e| matches!(e, AgentEvent::ToolCallStarted { .. })),
        1
    );
    assert!(events.iter().any(|e| matches!(e,
        AgentEvent::ToolCallFinished { name, output, is_error: false, .. } if name == "echo" && output == "ping")));
}

#[tokio::test(start_paused = true)]
async fn max_turns_counts_model_calls() {
    let looping: Vec<ScriptedTurn> = (0..10)
        .map(|i| ScriptedTurn::tools(&[("echo", json!({"text": format!("step {i}")}))]))
        .collect();
    let mut config = config_allowing(&["echo"]);
    config.max_turns = 3;
    let mut h = harness(config, looping);
    let r = h.agent.run("go").await;
    assert_eq!(r.exit, ExitReason::MaxTurns);
    assert_eq!(r.turns, 3);
    assert_eq!(h.model.requests().len(), 3);
    assert!(!r.success);
    assert_paired(h.agent.history());
}

#[tokio::test(start_paused = true)]
async fn max_turns_zero_makes_no_call() {
    let mut config = config_allowing(&["echo"]);
    config.max_turns = 0;
    let mut h = harness(config, vec![ScriptedTurn::text("never")]);
    let r = h.agent.run("go").await;
    assert_eq!(r.exit, ExitReason::MaxTurns);
    assert_eq!(h.model.requests().len(), 0);
}

#[tokio::test(start_paused = true)]
async fn cancelled_before_the_model_call_aborts_without_calling() {
    let mut h = harness(
        config_allowing(&["echo"]),
        vec![ScriptedTurn::text("never")],
    );
    h.agent.handle().cancel();
    let r = h.agent.run("go").await;
    assert_eq!(r.exit, ExitReason::Aborted);
    assert_eq!(h.model.requests().len(), 0);
    // The next prompt gets a fresh token.
    let r = h.agent.run("again").await;
    assert_eq!(r.exit, ExitReason::EndTurn);
}

#[tokio::test(start_paused = true)]
async fn cancel_during_the_stream_stops_at_once_and_keeps_partial_text() {
    let mut h = harness(
        config_allowing(&["echo"]),
        vec![
            ScriptedTurn::new()
                .delta("partial ")
                .call("", "echo", json!({"text": "x"}))
                .hang(),
        ],
    );
    let handle = h.agent.handle();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(30)).await;
        handle.cancel();
    });
    let r = tokio::time::timeout(Duration::from_secs(5), h.agent.run("go"))
        .await
        .unwrap();
    assert_eq!(r.exit, ExitReason::Aborted);
    assert_eq!(r.output, "partial ");
    // The unfinished response's tool call is dropped, not left unpaired.
    assert_paired(h.agent.history());
    assert_eq!(h.agent.history().last().unwrap().text(), "partial ");
    assert_eq!(h.act.runs.load(std::sync::atomic::Ordering::SeqCst), 0);
}

#[tokio::test(start_paused = true)]
async fn cancel_while_tools_run_pairs_them_with_aborted_results() {
    let mut h = harness(
        config_allowing(&["act"]),
        vec![
            ScriptedTurn::tools(&[
                ("act", json!({"action": "sleep", "n": 400})),
                ("act", json!({"action": "sleep", "n": 450})),
            ]),
            ScriptedTurn::text("never"),
        ],
    );
    let handle = h.agent.handle();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        handle.cancel();
    });
    let r = h.agent.run("go").await;
    assert_eq!(r.exit, ExitReason::Aborted);
    assert_eq!(h.model.requests().len(), 1);
    assert_paired(h.agent.history());
    let results = last_results(h.agent.history());
    assert_eq!(results.len(), 2);
    for (content, is_error) in results {
        assert!(is_error);
        assert!(content.contains("Aborted"), "{content}");
    }
}

#[tokio::test(start_paused = true)]
async fn budget_trips_only_when_strictly_greater_and_after_results() {
    // Exactly at the budget: keeps going.
    let mut config = config_allowing(&["echo"]);
    config.max_token_budget = Some(100);
    let mut h = harness(
        config.clone(),
        vec![
            ScriptedTurn::new()
                .call("", "echo", json!({"text": "a"}))
                .usage(60, 40)
                .stop(StopReason::ToolUse),
            ScriptedTurn::new()
                .delta("done")
                .usage(0, 0)
                .stop(StopReason::EndTurn),
        ],
    );
    let r = h.agent.run("go").await;
    assert_eq!(r.exit, ExitReason::EndTurn);

    // One token over: the turn's tools still run and are paired, then the run stops.
    let mut h = harness(
        config,
        vec![
            ScriptedTurn::new()
                .call("", "echo", json!({"text": "a"}))
                .usage(60, 41)
                .stop(StopReason::ToolUse),
            ScriptedTurn::text("never"),
        ],
    );
    let r = h.agent.run("go").await;
    assert_eq!(r.exit, ExitReason::BudgetExceeded);
    assert_eq!(r.usage.total(), 101);
    assert_eq!(h.model.requests().len(), 1);
    assert_paired(h.agent.history());
    assert_eq!(
        last_results(h.agent.history()),
        vec![("a".to_owned(), false)]
    );
}

/// Shown able to fail: the runner kept the last non-empty text, so this run's answer was
/// "Let me look." (in the issue, a recovered call's raw JSON) with no word of the empty end.
#[tokio::test(start_paused = true)]
async fn the_answer_is_the_last_turns_words_and_an_empty_end_is_said() {
    let mut h = harness(
        config_allowing(&["echo"]),
        vec![
            ScriptedTurn::new()
                .delta("Let me look.")
                .call("c1", "echo", json!({"text": "x"}))
                .stop(StopReason::ToolUse),
            ScriptedTurn::new().stop(StopReason::EndTurn),
        ],
    );
    let r = h.agent.run("go").await;
    assert_eq!(r.exit, ExitReason::EndTurn);
    assert_eq!(r.output, "");
    assert!(h.events.events().iter().any(|e| matches!(e,
        AgentEvent::Warning { message, .. } if message.contains("without an answer"))));
}

/// Issue 52: a real 1.5B model answered `<tools></tools>` and the run ended with exit 0 and
/// no word. Markup alone is asked about once; an answer then is the answer.
#[tokio::test(start_paused = true)]
async fn a_reply_of_markup_alone_is_asked_about_once() {
    let mut h = harness(
        config_allowing(&[]),
        vec![
            ScriptedTurn::new()
                .delta("<tools></tools>")
                .stop(StopReason::EndTurn),
            ScriptedTurn::new()
                .delta("There are 3 files.")
                .stop(StopReason::EndTurn),
        ],
    );
    let r = h.agent.run("go").await;
    assert_eq!(r.exit, ExitReason::EndTurn);
    assert_eq!(r.output, "There are 3 files.");
    assert_eq!(h.model.requests().len(), 2);
    let asked = h.model.requests()[1].messages.last().unwrap().text();
    assert!(asked.contains("only markup"), "{asked}");
}

/// Markup twice: the run ends with no answer, and says so.
#[tokio::test(start_paused = true)]
async fn markup_twice_ends_without_an_answer_and_says_so() {
    let mut h = harness(
        config_allowing(&[]),
        vec![
            ScriptedTurn::new()
                .delta("<tool_response>ok</tool_response>")
                .stop(StopReason::EndTurn),
            ScriptedTurn::new()
                .delta("<tools></tools>")
                .stop(StopReason::EndTurn),
        ],
    );
    let r = h.agent.run("go").await;
    assert_eq!(r.exit, ExitReason::EndTurn);
    assert_eq!(r.output, "");
    assert!(h.events.events().iter().any(|e| matches!(e,
        AgentEvent::Warning { message, .. } if message.contains("markup only again"))));
    assert_paired(h.agent.history());
}

#[tokio::test(start_paused = true)]
async fn a_final_answer_over_budget_reports_the_budget() {
    let mut config = config_allowing(&[]);
    config.max_token_budget = Some(10);
    let mut h = harness(
        config,
        vec![
            ScriptedTurn::new()
                .delta("long answer")
                .usage(20, 20)
                .stop(StopReason::EndTurn),
        ],
    );
    let r = h.agent.run("go").await;
    assert_eq!(r.exit, ExitReason::BudgetExceeded);
    assert_eq!(r.output, "long answer");
}

#[tokio::test(start_paused = true)]
async fn model_errors_end_the_run_with_a_clear_error() {
    let mut h = harness(
        config_allowing(&["echo"]),
        vec![
            ScriptedTurn::new()
                .delta("so")
                .error(ErrorKind::RateLimited, "rate limited: retry in 20 s"),
        ],
    );
    let r = h.agent.run("go").await;
    assert_eq!(r.exit, ExitReason::Error);
    let err = r.error.unwrap();
    assert_eq!(err.kind, ErrorKind::RateLimited);
    assert!(h.events.events().iter().any(|e| matches!(e,
        AgentEvent::Error { kind: ErrorKind::RateLimited, message } if message.contains("retry"))));
    // The prompt is kept; the partial text too.
    assert_eq!(h.agent.history()[0], Message::user_text("go"));
    assert_paired(h.agent.history());
}

#[tokio::test(start_paused = true)]
async fn history_is_kept_across_prompts_unless_fresh() {
    let mut h = harness(
        config_allowing(&[]),
        vec![
            ScriptedTurn::text("one"),
            ScriptedTurn::text("two"),
            ScriptedTurn::text("three"),
        ],
    );
    h.agent.run("first").await;
    h.agent.run("second").await;
    let reqs = h.model.requests();
    assert_eq!(reqs[1].messages.len(), 3);
    assert_eq!(reqs[1].messages[0], Message::user_text("first"));
    assert_eq!(reqs[1].messages[1], Message::assistant_text("one"));
    let fresh = h.agent.run_fresh("third").await;
    assert_eq!(fresh.output, "three");
    assert_eq!(h.model.requests()[2].messages.len(), 1);
    assert_eq!(h.agent.history().len(), 4);
}

#[tokio::test(start_paused = true)]
async fn thinking_blocks_keep_their_signature_and_order() {
    let mut h = harness(
        config_allowing(&["echo"]),
        vec![
            ScriptedTurn::new()
                .thinking("let me see", "sig-abc")
                .call("", "echo", json!({"text": "x"}))
                .stop(StopReason::ToolUse),
            ScriptedTurn::text("ok"),
        ],
    );
    h.agent.run("go").await;
    let sent = &h.model.requests()[1].messages[1];
    assert_eq!(
        sent.content[0],
        ContentBlock::Thinking {
            thinking: "let me see".into(),
            signature: Some("sig-abc".into())
        }
    );
    assert!(matches!(sent.content[1], ContentBlock::ToolCall(_)));
}

#[tokio::test(start_paused = true)]
async fn missing_and_duplicate_call_ids_are_made_unique() {
    let mut h = harness(
        config_allowing(&["echo"]),
        vec![
            ScriptedTurn::new()
                .call("dup", "echo", json!({"text": "1"}))
                .call("dup", "echo", json!({"text": "2"}))
                .stop(StopReason::ToolUse),
            ScriptedTurn::text("ok"),
        ],
    );
    h.agent.run("go").await;
    let assistant = &h.agent.history()[1];
    let ids: Vec<&str> = assistant.tool_calls().map(|c| c.id.as_str()).collect();
    assert_eq!(ids.len(), 2);
    assert_ne!(ids[0], ids[1]);
    assert_eq!(
        last_results(h.agent.history()),
        vec![("1".into(), false), ("2".into(), false)]
    );
}

#[derive(Default)]
struct Saved(Mutex<Vec<Vec<Message>>>);

impl HistoryLog for Saved {
    fn save(&self, messages: &[Message]) {
        self.0.lock().unwrap().push(messages.to_vec());
    }
}

#[tokio::test(start_paused = true)]
async fn checkpoints_are_always_paired_and_end_with_the_full_history() {
    let saved = Arc::new(Saved::default());
    let mut config = config_allowing(&["echo"]);
    config.loop_detection = Some(LoopConfig::default());
    let h = harness(
        config,
        vec![
            ScriptedTurn::tools(&[("echo", json!({"text": "a"}))]),
            ScriptedTurn::tools(&[
                ("echo", json!({"text": "b"})),
                ("echo", json!({"text": "c"})),
            ]),
            ScriptedTurn::text("done"),
        ],
    );
    let mut agent = h.agent.with_history_log(saved.clone());
    let r = agent.run("go").await;
    let snapshots = saved.0.lock().unwrap().clone();
    assert!(snapshots.len() >= 3);
    // Paired, but for the calls about to run: saved before they run, so a kill keeps them.
    let mut in_flight = 0;
    for s in &snapshots {
        match s.split_last() {
            Some((last, rest)) if last.tool_calls().next().is_some() => {
                in_flight += 1;
                assert_paired(rest);
            }
            _ => assert_paired(s),
        }
    }
    assert_eq!(in_flight, 2, "each tool turn is saved before its tools run");
    assert_eq!(snapshots.last().unwrap(), agent.history());
    assert_eq!(agent.new_messages(&r).len(), 6);
}

#[tokio::test(start_paused = true)]
async fn provider_notices_reach_the_user_as_warnings() {
    let mut h = harness(
        config_allowing(&[]),
        vec![
            ScriptedTurn::new()
                .notice("asking again without streaming")
                .retrying("rate limited; retrying in 2 s (attempt 2 of 4)", RETRY)
                .delta("ok")
                .stop(StopReason::EndTurn),
        ],
    );
    const RETRY: Retry = Retry {
        attempt: 2,
        attempts: 4,
    };
    let r = h.agent.run("go").await;
    assert_eq!(r.output, "ok");
    let events = h.events.events();
    assert!(events.contains(&AgentEvent::warning("asking again without streaming")));
    // A retry keeps its attempt as data, so a UI need not read it out of the words.
    assert!(events.contains(&AgentEvent::Warning {
        message: "rate limited; retrying in 2 s (attempt 2 of 4)".into(),
        retry: Some(RETRY),
    }));
}

/// Issue 52: a real run exited 101 after its stream was cancelled, the panic's message lost.
/// A panic inside the loop (here the model's stream) ends the run with an error that names
/// it, as an event, and the agent keeps the conversation and takes the next prompt.
#[tokio::test(start_paused = true)]
async fn a_panic_in_the_loop_ends_the_run_with_its_message_and_not_the_process() {
    use paddock_core::{Agent, CollectSink, Model, ModelRequest, ModelStream};
    struct Panics;
    impl Model for Panics {
        fn stream(&self, _: &ModelRequest<'_>) -> ModelStream {
            panic!("a decoder bug");
        }
    }
    let events = CollectSink::new();
    let mut agent = Agent::new(
        config_allowing(&[]),
        Arc::new(Panics),
        registry(&Arc::default()),
    )
    .with_events(events.clone());
    let r = agent.run("go").await;
    assert_eq!(r.exit, ExitReason::Error);
    assert!(r.error.unwrap().message.contains("a decoder bug"));
    assert!(events.events().iter().any(|e| matches!(e,
        AgentEvent::Error { message, .. } if message.contains("internal error (a bug in Paddock): a decoder bug"))));
    assert_eq!(agent.history().len(), 1, "the prompt is kept");
    let again = agent.run("again").await;
    assert_eq!(again.exit, ExitReason::Error);
    assert_eq!(agent.history().len(), 2);
}
