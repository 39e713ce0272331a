//! Every executor failure kind becomes a result the model sees; calls share one cap.

use std::sync::atomic::Ordering;

use paddock_core::protocol::ExitReason;
use paddock_core::scripted::ScriptedTurn;
use serde_json::{Value, json};

use paddock_core::testing::*;

async fn run_calls(
    calls: Vec<(&str, Value)>,
    max_concurrency: usize,
) -> (Vec<(String, bool)>, Harness) {
    let mut config = config_allowing(&["echo", "act"]);
    config.limits.max_concurrency = max_concurrency;
    let mut h = harness(
        config,
        vec![ScriptedTurn::tools(&calls), ScriptedTurn::text("ok")],
    );
    let r = h.agent.run("go").await;
    assert_eq!(r.exit, ExitReason::EndTurn);
    assert_paired(h.agent.history());
    (last_results(h.agent.history()), h)
}

#[tokio::test(start_paused = true)]
async fn calls_run_concurrently_under_the_cap_and_keep_their_order() {
    let calls: Vec<(&str, Value)> = (0..8)
        .map(|i| ("act", json!({"action": "sleep", "n": 80 - i * 5})))
        .collect();
    let (results, h) = run_calls(calls, 4).await;
    let peak = h.act.peak.load(Ordering::SeqCst);
    assert!(peak <= 4, "peak {peak} over the cap");
    assert!(peak >= 2, "calls did not overlap (peak {peak})");
    let expected: Vec<(String, bool)> = (0..8)
        .map(|i| (format!("slept {}", 80 - i * 5), false))
        .collect();
    assert_eq!(results, expected);

    let calls: Vec<(&str, Value)> = (0..3)
        .map(|_| ("act", json!({"action": "sleep", "n": 20})))
        .collect();
    let (_, h) = run_calls(calls, 1).await;
    assert_eq!(h.act.peak.load(Ordering::SeqCst), 1);
}

#[tokio::test(start_paused = true)]
async fn invalid_input_says_which_field_and_why() {
    let (results, _) = run_calls(
        vec![
            ("echo", json!({"text": 5})),
            ("echo", json!({"txt": "x"})),
            ("echo", json!("not json")),
        ],
        4,
    )
    .await;
    assert_eq!(
        results[0].0,
        "Invalid input for 'echo': field `text`: invalid type: integer `5`, expected a string. \
         Fix the input and call it again."
    );
    assert!(
        results[1].0.contains("missing field `text`"),
        "{}",
        results[1].0
    );
    assert!(
        results[2].0.starts_with("Invalid input for 'echo'"),
        "{}",
        results[2].0
    );
    assert!(results.iter().all(|(_, e)| *e));
}

#[tokio::test(start_paused = true)]
async fn stringified_nested_json_is_accepted() {
    let (results, _) = run_calls(
        vec![
            (
                "echo",
                json!({"text": "shout", "options": "{\"upper\": true}"}),
            ),
            ("echo", json!("{\"text\": \"whole input as a string\"}")),
        ],
        4,
    )
    .await;
    assert_eq!(results[0], ("SHOUT".to_owned(), false));
    assert_eq!(results[1], ("whole input as a string".to_owned(), false));
}

#[tokio::test(start_paused = true)]
async fn failures_panics_and_timeouts_are_error_results() {
    quiet_expected_panics();
    let (results, _) = run_calls(
        vec![
            ("act", json!({"action": "fail"})),
            ("act", json!({"action": "panic"})),
            ("act", json!({"action": "sleep", "n": 5000})),
            ("act", json!({"action": "wave"})),
        ],
        4,
    )
    .await;
    assert_eq!(results[0], ("Error: disk on fire".to_owned(), true));
    assert!(
        results[1].0.contains("crashed: tool exploded"),
        "{}",
        results[1].0
    );
    assert!(results[1].1);
    assert_eq!(
        results[2],
        (
            "Tool 'act' timed out after 500 ms and was stopped.".to_owned(),
            true
        )
    );
    assert_eq!(results[3], ("did wave".to_owned(), false));
}

#[tokio::test(start_paused = true)]
async fn long_output_is_cut_with_a_marker() {
    let (results, _) = run_calls(vec![("act", json!({"action": "big", "n": 5000}))], 4).await;
    let (content, is_error) = &results[0];
    assert!(!is_error);
    assert!(
        content.contains("[... 4000 characters truncated ...]"),
        "{}",
        &content[..100]
    );
    assert!(content.chars().count() < 1100);
}

#[tokio::test(start_paused = true)]
async fn an_output_is_one_buffer_in_the_history_and_the_finished_event() {
    let long = "y".repeat(10_000);
    let (_, h) = run_calls(vec![("echo", json!({ "text": long }))], 4).await;
    let result = h
        .agent
        .history()
        .iter()
        .flat_map(|m| m.tool_results())
        .next()
        .expect("a result")
        .content
        .clone();
    let output = h
        .events
        .events()
        .into_iter()
        .find_map(|e| match e {
            paddock_core::protocol::AgentEvent::ToolCallFinished { output, .. } => Some(output),
            _ => None,
        })
        .expect("a finished call");
    assert_eq!(result, long);
    assert!(
        paddock_core::protocol::SharedText::ptr_eq(&result, &output),
        "the event's output is a copy of the history's result"
    );
}

#[tokio::test(start_paused = true)]
async fn a_started_call_event_shares_the_history_call() {
    let (_, h) = run_calls(vec![("echo", json!({"text": "hi"}))], 4).await;
    let in_history = h
        .agent
        .history()
        .iter()
        .flat_map(|m| m.shared_tool_calls())
        .next()
        .expect("a call")
        .clone();
    let in_event = h
        .events
        .events()
        .into_iter()
        .find_map(|e| match e {
            paddock_core::protocol::AgentEvent::ToolCallStarted { call, .. } => Some(call),
            _ => None,
        })
        .expect("a started call");
    assert!(
        std::sync::Arc::ptr_eq(&in_history, &in_event),
        "the event's call is a copy of the history's"
    );
}
