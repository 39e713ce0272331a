//! Compaction keeps every call paired and the user's words verbatim, a long run in a small
//! window never sends a request over it, and an overflow error is met with one compaction and
//! a retry.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::stream;
use paddock_core::Agent;
use paddock_core::compaction::{self, SUMMARY_HEADER};
use paddock_core::model::{Model, ModelError, ModelEvent, ModelRequest, ModelStream};
use paddock_core::protocol::{
    AgentEvent, CompactionReason, ContentBlock, ErrorKind, ExitReason, Message, Role, StopReason,
    ToolCall, ToolResult,
};
use proptest::prelude::*;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use paddock_core::testing::*;

/// A model that answers summaries with a fixed text, and otherwise what `turn` says.
struct Scripted<F: Fn(u32, &ModelRequest<'_>) -> Vec<ModelEvent> + Send + Sync> {
    turns: AtomicU32,
    summaries: AtomicU32,
    turn: F,
    /// The largest request seen (estimate), and every request's.
    sizes: Mutex<Vec<u32>>,
}

impl<F: Fn(u32, &ModelRequest<'_>) -> Vec<ModelEvent> + Send + Sync> Model for Scripted<F> {
    fn stream(&self, request: &ModelRequest<'_>) -> ModelStream {
        let size =
            compaction::context_of(request.system, request.tools, request.messages, None).used;
        self.sizes.lock().unwrap().push(size);
        let events =
            if request.tools.is_empty() && request.system.is_some_and(|s| s.contains("compact")) {
                self.summaries.fetch_add(1, Ordering::SeqCst);
                vec![
                    ModelEvent::TextDelta("Worked through the steps; all went fine.".into()),
                    ModelEvent::Stop(StopReason::EndTurn),
                ]
            } else {
                let n = self.turns.fetch_add(1, Ordering::SeqCst) + 1;
                (self.turn)(n, request)
            };
        Box::pin(stream::iter(events.into_iter().map(Ok)))
    }
}

fn model<F: Fn(u32, &ModelRequest<'_>) -> Vec<ModelEvent> + Send + Sync>(f: F) -> Arc<Scripted<F>> {
    Arc::new(Scripted {
        turns: AtomicU32::new(0),
        summaries: AtomicU32::new(0),
        turn: f,
        sizes: Mutex::default(),
    })
}

fn call(n: u32) -> Vec<ModelEvent> {
    vec![
        ModelEvent::ToolCall(ToolCall {
            id: format!("c{n}"),
            name: "echo".into(),
            input: json!({"text": format!("step {n}: {}", "x".repeat(600))}),
            parsed_from_text: false,
        }),
        ModelEvent::Stop(StopReason::ToolUse),
    ]
}

#[tokio::test(start_paused = true)]
async fn a_300_turn_run_in_a_4k_window_never_sends_a_request_over_it() {
    const WINDOW: u32 = 4_096;
    const TURNS: u32 = 300;
    let m = model(|n, _| {
        if n < TURNS {
            call(n)
        } else {
            vec![
                ModelEvent::TextDelta("all done".into()),
                ModelEvent::Stop(StopReason::EndTurn),
            ]
        }
    });
    let mut config = config_allowing(&["echo"]);
    config.max_turns = TURNS + 5;
    config.context_window = Some(WINDOW);
    config.loop_detection = None;
    config.system_prompt = Some("You are a careful agent.".into());
    let events = paddock_core::CollectSink::new();
    let mut agent =
        Agent::new(config, m.clone(), registry(&Arc::default())).with_events(events.clone());
    let r = agent.run("Do the 300 steps. Do not skip any.").await;
    assert_eq!(r.exit, ExitReason::EndTurn, "{:?}", r.error);
    assert_eq!(r.turns, TURNS);
    let sizes = m.sizes.lock().unwrap().clone();
    let largest = sizes.iter().max().copied().unwrap();
    assert!(
        largest <= WINDOW,
        "a request of {largest} tokens went over {WINDOW}"
    );
    let compactions = count_events(
        &events.events(),
        |e| matches!(e, AgentEvent::Compacted(c) if c.reason == CompactionReason::Threshold),
    );
    assert!(compactions >= 10, "only {compactions} compactions");
    assert!(m.summaries.load(Ordering::SeqCst) as usize >= compactions);
    assert_paired(agent.history());
    // The user's words survive every compaction, word for word.
    let first = agent.history()[0].text();
    assert!(first.starts_with(SUMMARY_HEADER), "{first}");
    assert!(
        first.contains("<user-message>\nDo the 300 steps. Do not skip any.\n</user-message>"),
        "{first}"
    );
}

/// Shown able to fail: before the calibration every `context` event carried the raw
/// estimate, so the second one equalled `sizes[1]` although the server counted half as much
/// again.
#[tokio::test(start_paused = true)]
async fn the_servers_count_of_a_request_corrects_the_estimate() {
    // A server whose tokenizer counts 1.5 times Paddock's estimate, and says so.
    let m = model(|n, request| {
        let size =
            compaction::context_of(request.system, request.tools, request.messages, None).used;
        let usage = ModelEvent::Usage(paddock_core::protocol::TokenUsage::new(
            u64::from(size) * 3 / 2,
            1,
        ));
        let mut events = if n < 3 {
            call(n)
        } else {
            vec![
                ModelEvent::TextDelta("done".into()),
                ModelEvent::Stop(StopReason::EndTurn),
            ]
        };
        events.insert(0, usage);
        events
    });
    let mut config = config_allowing(&["echo"]);
    config.loop_detection = None;
    let events = paddock_core::CollectSink::new();
    let mut agent =
        Agent::new(config, m.clone(), registry(&Arc::default())).with_events(events.clone());
    let r = agent.run("go").await;
    assert_eq!(r.exit, ExitReason::EndTurn, "{:?}", r.error);
    let used: Vec<u32> = events
        .events()
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Context(c) => Some(c.used),
            _ => None,
        })
        .collect();
    let sizes = m.sizes.lock().unwrap().clone();
    assert_eq!(used.len(), 3);
    assert_eq!(used[0], sizes[0], "nothing learned before the first answer");
    for i in 1..3 {
        let (got, raw) = (used[i], sizes[i]);
        assert!(
            got >= raw * 14 / 10 && got <= raw * 16 / 10,
            "request {i}: {got} against an estimate of {raw}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn an_overflow_error_is_met_with_one_compaction_and_a_retry() {
    let overflowed = Arc::new(AtomicU32::new(0));
    let seen = overflowed.clone();
    let m = model(move |n, request| match n {
        1..=6 => call(n),
        // The provider says the conversation no longer fits, until it is compacted.
        _ if !request.messages[0].text().starts_with(SUMMARY_HEADER) => {
            seen.fetch_add(1, Ordering::SeqCst);
            vec![]
        }
        _ => vec![
            ModelEvent::TextDelta("fits now".into()),
            ModelEvent::Stop(StopReason::EndTurn),
        ],
    });
    struct Overflowing<M: Model>(Arc<M>, Arc<AtomicU32>);
    impl<M: Model> Model for Overflowing<M> {
        fn stream(&self, request: &ModelRequest<'_>) -> ModelStream {
            let before = self.1.load(Ordering::SeqCst);
            let inner = self.0.stream(request);
            if self.1.load(Ordering::SeqCst) > before {
                return Box::pin(stream::iter([Err(ModelError::new(
                    ErrorKind::ContextTooLong,
                    "prompt is too long: 9000 tokens > 8192 maximum",
                ))]));
            }
            inner
        }
    }
    let mut config = config_allowing(&["echo"]);
    config.loop_detection = None;
    let events = paddock_core::CollectSink::new();
    let mut agent = Agent::new(
        config,
        Arc::new(Overflowing(m.clone(), overflowed.clone())),
        registry(&Arc::default()),
    )
    .with_events(events.clone());
    let r = agent.run("go").await;
    assert_eq!(r.exit, ExitReason::EndTurn, "{:?}", r.error);
    assert_eq!(r.output, "fits now");
    assert_eq!(
        overflowed.load(Ordering::SeqCst),
        1,
        "one overflow, one retry"
    );
    let reasons: Vec<CompactionReason> = events
        .events()
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Compacted(c) => Some(c.reason),
            _ => None,
        })
        .collect();
    assert_eq!(reasons, [CompactionReason::Overflow]);
    assert_paired(agent.history());

    // Without compaction the overflow fails the run, as before.
    struct AlwaysOver;
    impl Model for AlwaysOver {
        fn stream(&self, _: &ModelRequest<'_>) -> ModelStream {
            Box::pin(stream::iter([Err(ModelError::new(
                ErrorKind::ContextTooLong,
                "too long",
            ))]))
        }
    }
    let mut config = config_allowing(&["echo"]);
    config.compaction = None;
    let mut agent = Agent::new(config, Arc::new(AlwaysOver), registry(&Arc::default()));
    let r = agent.run("go").await;
    assert_eq!(r.exit, ExitReason::Error);
    assert_eq!(r.error.unwrap().kind, ErrorKind::ContextTooLong);
}

#[tokio::test(start_paused = true)]
async fn a_compaction_that_fails_is_a_warning_and_the_run_goes_on() {
    struct NoSummaries;
    impl Model for NoSummaries {
        fn stream(&self, request: &ModelRequest<'_>) -> ModelStream {
            let events = if request.tools.is_empty() {
                vec![Err(ModelError::new(
                    ErrorKind::Server,
                    "summaries are down",
                ))]
            } else if request.messages.len() < 12 {
                call(request.messages.len() as u32)
                    .into_iter()
                    .map(Ok)
                    .collect()
            } else {
                vec![
                    Ok(ModelEvent::TextDelta("done".into())),
                    Ok(ModelEvent::Stop(StopReason::EndTurn)),
                ]
            };
            Box::pin(stream::iter(events))
        }
    }
    let mut config = config_allowing(&["echo"]);
    config.context_window = Some(1_000);
    config.loop_detection = None;
    let events = paddock_core::CollectSink::new();
    let mut agent = Agent::new(config, Arc::new(NoSummaries), registry(&Arc::default()))
        .with_events(events.clone());
    let r = agent.run("go").await;
    assert_eq!(r.exit, ExitReason::EndTurn);
    assert!(
        count_events(
            &events.events(),
            |e| matches!(e, AgentEvent::Warning { message, .. } if message.contains("summaries are down"))
        ) >= 1
    );
}

// Random histories: a cut keeps pairing, the summary message carries every user message of
// the replaced part word for word, and the kept part is untouched.

fn history_strategy() -> impl Strategy<Value = Vec<Message>> {
    let turn = prop_oneof![
        (0usize..300).prop_map(|n| vec![Message::assistant_text("a".repeat(n))]),
        (1usize..3, 0usize..400).prop_map(|(calls, size)| {
            let ids: Vec<String> = (0..calls).map(|i| format!("id{i}-{size}")).collect();
            vec![
                Message {
                    role: Role::Assistant,
                    content: ids
                        .iter()
                        .map(|id| {
                            ContentBlock::ToolCall(
                                ToolCall {
                                    id: id.clone(),
                                    name: "echo".into(),
                                    input: json!({}),
                                    parsed_from_text: false,
                                }
                                .into(),
                            )
                        })
                        .collect(),
                },
                Message {
                    role: Role::User,
                    content: ids
                        .iter()
                        .map(|id| {
                            ContentBlock::ToolResult(ToolResult {
                                tool_call_id: id.clone(),
                                content: "r".repeat(size).into(),
                                is_error: false,
                            })
                        })
                        .collect(),
                },
            ]
        }),
    ];
    let prompt = "[a-z ]{1,40}".prop_map(|t| vec![Message::user_text(format!("please {t}"))]);
    prop::collection::vec((prompt, prop::collection::vec(turn, 0..4)), 1..8).prop_map(|runs| {
        runs.into_iter()
            .flat_map(|(p, turns)| p.into_iter().chain(turns.into_iter().flatten()))
            .collect()
    })
}

proptest! {
    #[test]
    fn a_cut_keeps_pairing_and_the_users_words(history in history_strategy(), keep in 0u32..2_000) {
        let Some(cut) = compaction::cut_point(&history, keep) else {
            return Ok(());
        };
        prop_assert!(cut >= 1 && cut < history.len());
        let after = compaction::apply(&history, cut, "summary text");
        assert_paired(&after);
        prop_assert_eq!(after[0].role, Role::User);
        let summary = after[0].text();
        for m in &history[..cut] {
            if m.role == Role::User {
                for b in &m.content {
                    if let ContentBlock::Text { text } = b {
                        prop_assert!(summary.contains(text.as_str()), "{} lost", text);
                    }
                }
            }
        }
        // The kept part is as it was (the first kept user message gains the summary ahead).
        let tail = &history[cut..];
        let offset = after.len() - tail.len();
        for (i, m) in tail.iter().enumerate().skip(usize::from(offset == 0)) {
            prop_assert_eq!(&after[i + offset], m);
        }
        // Compacting the compacted history again still carries the first prompts.
        if let Some(again) = compaction::cut_point(&after, 0) {
            let twice = compaction::apply(&after, again, "second summary");
            assert_paired(&twice);
            for m in &history[..cut] {
                if m.role == Role::User && !m.content.iter().any(|b| matches!(b, ContentBlock::ToolResult(_))) {
                    prop_assert!(twice[0].text().contains(m.text().as_str()));
                }
            }
        }
    }
}

#[tokio::test]
async fn asked_compaction_reports_sizes_and_needs_something_to_compact() {
    let m = model(|_, _| vec![]);
    let cancel = CancellationToken::new();
    let short = [Message::user_text("hi")];
    let err = compaction::compact(
        &*m,
        "m",
        &short,
        Some(1_000),
        CompactionReason::Asked,
        &cancel,
    )
    .await
    .unwrap_err();
    assert_eq!(err, paddock_core::CompactError::NothingToCompact);
    let mut long = vec![Message::user_text("start")];
    for n in 0..20 {
        long.push(Message::assistant_text(format!("{n} {}", "y".repeat(400))));
        long.push(Message::user_text(format!("more {n}")));
    }
    let done = compaction::compact(
        &*m,
        "m",
        &long,
        Some(2_000),
        CompactionReason::Asked,
        &cancel,
    )
    .await
    .unwrap();
    assert!(done.info.after_tokens < done.info.before_tokens);
    assert_eq!(
        done.info.summary,
        "Worked through the steps; all went fine."
    );
    assert!(
        done.history[0]
            .text()
            .contains("<user-message>\nstart\n</user-message>")
    );
}

#[tokio::test]
async fn a_summary_that_saves_nothing_is_refused_and_a_tiny_part_costs_no_call() {
    use paddock_core::scripted::{ScriptedModel, ScriptedTurn};
    // What fills the window is the recent tool result; the older part is the prompt alone.
    let big = ToolResult {
        tool_call_id: "c1".into(),
        content: "o".repeat(24_000).into(),
        is_error: false,
    };
    let mut history = vec![
        Message::user_text("look at this output please ".repeat(12)),
        Message {
            role: Role::Assistant,
            content: vec![ContentBlock::ToolCall(
                ToolCall {
                    id: "c1".into(),
                    name: "bash".into(),
                    input: json!({"command": "cat big"}),
                    parsed_from_text: false,
                }
                .into(),
            )],
        },
        Message {
            role: Role::User,
            content: vec![ContentBlock::ToolResult(big)],
        },
    ];
    let wordy =
        ScriptedModel::recording([
            ScriptedTurn::text(&"a long-winded summary ".repeat(100)).usage(90, 600)
        ]);
    // As the runner would, at the threshold of an 8k window.
    let refused = |model: &ScriptedModel, history: &[Message]| {
        let (model, history) = (model.clone(), history.to_vec());
        async move {
            compaction::compact(
                &model,
                "m",
                &history,
                Some(8_192),
                CompactionReason::Threshold,
                &CancellationToken::new(),
            )
            .await
            .unwrap_err()
        }
    };
    match refused(&wordy, &history).await {
        paddock_core::CompactError::NoGain {
            before,
            after,
            usage,
        } => {
            assert!(after >= before, "{before} -> {after}");
            assert_eq!((usage.input_tokens, usage.output_tokens), (90, 600));
        }
        other => panic!("expected NoGain, got {other:?}"),
    }

    // A few words before the recent part: not worth a summary, and no call is made.
    history[0] = Message::user_text("big");
    let unused = ScriptedModel::recording([]);
    assert_eq!(
        refused(&unused, &history).await,
        paddock_core::CompactError::NothingToCompact
    );
    assert_eq!(unused.calls(), 0);
}
