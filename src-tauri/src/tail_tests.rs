//! The cut, on sessions shaped the way the kernel writes them. The same cases go to
//! `ui/src/test/generated/tails.json`, where the UI checks that its replay of each tail shows
//! the same last turns as its replay of the whole session (the cut follows that replay).

use std::sync::Arc;

use paddock_protocol::{
    AgentEvent, CompactionInfo, CompactionReason, ContentBlock, ContextInfo, Cost, ErrorKind,
    ExitReason, Message, Omitted, RewindInfo, Role, StopReason, TokenUsage, ToolCall, ToolResult,
    ToolStatus,
};
use serde_json::{Value, json};

use super::keep_tail;

/// Writes messages and events in the kernel's order.
#[derive(Default)]
struct Session {
    messages: Vec<Message>,
    events: Vec<AgentEvent>,
    total: TokenUsage,
    cost: Cost,
    turn: u32,
}

/// Each model call costs a quarter (a figure sums exactly in binary).
const CALL: Cost = Cost {
    usd: 0.25,
    complete: true,
    local: false,
};

impl Session {
    fn prompt(&mut self, text: &str) {
        self.messages.push(Message::user_text(text));
        self.events.push(AgentEvent::RunStarted {
            agent: "main".into(),
            model: "m".into(),
            max_turns: 100,
            pricing: None,
        });
        self.total = TokenUsage::default();
        self.cost = Cost::NONE;
        self.turn = 0;
    }

    /// A turn that calls two tools (a delegation's events among them when `delegate`).
    fn tool_turn(&mut self, delegate: bool) {
        self.turn += 1;
        let t = self.turn;
        let id = |k: &str| format!("r{}t{t}{k}", self.messages.len());
        let (a, b) = (id("a"), id("b"));
        self.events.push(AgentEvent::Context(ContextInfo {
            used: 100 * t,
            window: Some(10_000),
            ..ContextInfo::default()
        }));
        self.usage();
        self.events.push(AgentEvent::TurnFinished {
            turn: t,
            stop_reason: StopReason::ToolUse,
        });
        self.messages.push(Message {
            role: Role::Assistant,
            content: vec![
                ContentBlock::Text {
                    text: format!("turn {t}"),
                },
                call(&a, "file_read"),
                call(&b, "grep"),
            ],
        });
        if delegate {
            self.events.push(AgentEvent::Delegated {
                agent: "helper".into(),
                depth: 1,
                call_id: a.clone(),
                event: Box::new(AgentEvent::RunStarted {
                    agent: "helper".into(),
                    model: "m".into(),
                    max_turns: 5,
                    pricing: None,
                }),
            });
        }
        for (id, name) in [(&a, "file_read"), (&b, "grep")] {
            self.events.push(finished(id, name));
        }
        self.messages.push(Message {
            role: Role::User,
            content: vec![result(&a), result(&b)],
        });
    }

    /// The run's answer, and its end.
    fn answer(&mut self) {
        self.turn += 1;
        self.usage();
        self.events.push(AgentEvent::TurnFinished {
            turn: self.turn,
            stop_reason: StopReason::EndTurn,
        });
        self.messages.push(Message::assistant_text("done"));
        self.end(ExitReason::EndTurn);
    }

    /// A last turn whose model call failed.
    fn failed(&mut self) {
        self.turn += 1;
        self.usage();
        self.events.push(AgentEvent::Error {
            kind: ErrorKind::Server,
            message: "500".into(),
        });
        self.end(ExitReason::Error);
    }

    fn usage(&mut self) {
        let turn = TokenUsage::new(1_000, 50);
        self.total += turn;
        self.cost += CALL;
        self.events.push(AgentEvent::Usage {
            turn,
            total: self.total,
            turn_cost: Some(CALL),
            total_cost: Some(self.cost),
        });
    }

    fn end(&mut self, exit: ExitReason) {
        self.events.push(AgentEvent::RunFinished {
            exit,
            turns: self.turn,
            usage: self.total,
            cost: Some(self.cost),
        });
    }

    fn compacted_between(&mut self, id: &str) {
        self.events.push(AgentEvent::Compacted(CompactionInfo {
            id: id.into(),
            reason: CompactionReason::Asked,
            replaced: 4,
            kept_turns: 1,
            before_tokens: 9_000,
            after_tokens: 1_000,
            summary: "so far".into(),
        }));
    }
}

fn call(id: &str, name: &str) -> ContentBlock {
    ContentBlock::ToolCall(Arc::new(ToolCall {
        id: id.into(),
        name: name.into(),
        input: json!({"path": "src/lib.rs"}),
        parsed_from_text: false,
    }))
}

fn result(id: &str) -> ContentBlock {
    ContentBlock::ToolResult(ToolResult {
        tool_call_id: id.into(),
        content: format!("out {id}").into(),
        is_error: false,
    })
}

fn finished(id: &str, name: &str) -> AgentEvent {
    AgentEvent::ToolCallFinished {
        id: id.into(),
        name: name.into(),
        summary: "src/lib.rs".into(),
        output: format!("out {id}").into(),
        is_error: false,
        status: ToolStatus::Ok,
        duration_ms: 2,
        why: String::new(),
        changes: Vec::new(),
    }
}

/// One long run: 30 tool turns (a delegation in some), then the answer.
fn long_run() -> Session {
    let mut s = Session::default();
    s.prompt("walk the parser");
    for t in 0..30 {
        s.tool_turn(t % 7 == 3);
    }
    s.answer();
    s
}

/// Six prompts of three turns each; a compaction asked for between the 4th and 5th.
fn many_prompts() -> Session {
    let mut s = Session::default();
    for p in 0..6 {
        if p == 4 {
            s.compacted_between("c1");
        }
        s.prompt(&format!("prompt {p}"));
        s.tool_turn(false);
        s.tool_turn(false);
        s.answer();
    }
    s
}

/// Two prompts; the second run's last model call failed.
fn failed_last() -> Session {
    let mut s = Session::default();
    s.prompt("one");
    s.tool_turn(false);
    s.answer();
    s.prompt("two");
    for _ in 0..5 {
        s.tool_turn(false);
    }
    s.failed();
    s
}

/// `prompts` three-turn prompts, then a 31-turn run whose history has only 26 replies:
/// Paddock stopped between saves (the history is saved less often than the events).
fn lagging(prompts: usize) -> Session {
    let mut s = Session::default();
    for p in 0..prompts.saturating_sub(1) {
        s.prompt(&format!("prompt {p}"));
        s.tool_turn(false);
        s.tool_turn(false);
        s.answer();
    }
    let long = long_run();
    s.messages
        .extend(long.messages.into_iter().take(1 + 2 * 26));
    s.events.extend(long.events);
    s
}

/// Cases: name, session, tail asked for, what should be left out.
fn cases() -> Vec<(&'static str, Session, u32, Option<Omitted>)> {
    let usage = |runs: u64| TokenUsage::new(3_000 * runs, 150 * runs);
    let costs = |runs: u32| Cost {
        usd: 0.75 * f64::from(runs),
        ..CALL
    };
    vec![
        (
            "one long run, cut inside it",
            long_run(),
            10,
            Some(Omitted {
                runs: 0,
                turns: 21,
                hidden_turns: 21,
                usage: TokenUsage::default(),
                cost: None,
            }),
        ),
        (
            "many prompts, cut before a run (the compaction before it stays)",
            many_prompts(),
            6,
            Some(Omitted {
                runs: 4,
                turns: 0,
                hidden_turns: 12,
                usage: usage(4),
                cost: Some(costs(4)),
            }),
        ),
        (
            "many prompts, cut inside a run",
            many_prompts(),
            8,
            Some(Omitted {
                runs: 3,
                turns: 1,
                hidden_turns: 10,
                usage: usage(3),
                cost: Some(costs(3)),
            }),
        ),
        (
            "the last turn failed",
            failed_last(),
            3,
            Some(Omitted {
                runs: 1,
                turns: 3,
                hidden_turns: 5,
                usage: TokenUsage::new(2_000, 100),
                cost: Some(Cost { usd: 0.5, ..CALL }),
            }),
        ),
        (
            "a history that lags its events: cut before the lagging run",
            lagging(4),
            5,
            Some(Omitted {
                runs: 3,
                turns: 0,
                hidden_turns: 9,
                usage: usage(3),
                cost: Some(costs(3)),
            }),
        ),
        ("short: nothing to leave out", many_prompts(), 18, None),
    ]
}

#[test]
fn tails_leave_out_whole_turns_and_say_what_went() {
    for (name, s, n, expected) in cases() {
        let (mut messages, mut events) = (s.messages.clone(), s.events.clone());
        let omitted = keep_tail(&mut messages, &mut events, n);
        assert_eq!(omitted, expected, "{name}");
        if omitted.is_none() {
            assert_eq!(
                (messages, events),
                (s.messages, s.events),
                "{name}: untouched"
            );
            continue;
        }
        // The tail is a prompt, then the replies of the turns kept; events end as they did.
        assert_eq!(messages[0].role, Role::User, "{name}: starts with a prompt");
        assert_eq!(messages.last(), s.messages.last(), "{name}");
        assert_eq!(events.last(), s.events.last(), "{name}");
        assert!(events.len() < s.events.len() && messages.len() < s.messages.len());
    }
}

#[test]
fn the_run_start_stays_when_its_first_turns_go() {
    let s = long_run();
    let (mut messages, mut events) = (s.messages.clone(), s.events.clone());
    keep_tail(&mut messages, &mut events, 10);
    assert!(matches!(events[0], AgentEvent::RunStarted { .. }));
    // Turn 22 starts at its context event; its reply is the first one kept.
    assert_eq!(
        events[1],
        AgentEvent::Context(ContextInfo {
            used: 2_200,
            window: Some(10_000),
            ..ContextInfo::default()
        })
    );
    assert_eq!(messages[0], s.messages[0]);
    assert_eq!(messages[1].text(), "turn 22");
}

#[test]
fn sessions_that_do_not_pair_up_are_sent_whole() {
    // A prompt whose run left no events (Paddock stopped before writing them).
    let mut s = many_prompts();
    s.messages.push(Message::user_text("lost"));
    s.messages.push(Message::assistant_text("answer"));
    let (mut messages, mut events) = (s.messages.clone(), s.events.clone());
    assert_eq!(keep_tail(&mut messages, &mut events, 2), None);
    assert_eq!((messages, events), (s.messages, s.events));
}

#[test]
fn a_history_that_lags_its_events_is_never_cut_inside_the_lagging_run() {
    // Keeping 5 turns of its 31 would leave out exactly the 26 replies the history has.
    let s = lagging(1);
    let (mut messages, mut events) = (s.messages.clone(), s.events.clone());
    assert_eq!(keep_tail(&mut messages, &mut events, 5), None);
    assert_eq!((messages, events), (s.messages, s.events));
}

#[test]
fn rewound_sessions_are_sent_whole() {
    let mut s = long_run();
    s.events.push(AgentEvent::Rewound(RewindInfo {
        id: "r1".into(),
        prompt: 1,
        turn: 25,
        files: false,
        conversation: true,
        messages: 50,
        before: "cp".into(),
        workspace: String::new(),
        undoes: None,
        changed: Vec::new(),
    }));
    let (mut messages, mut events) = (s.messages.clone(), s.events.clone());
    assert_eq!(keep_tail(&mut messages, &mut events, 10), None);
    assert_eq!((messages, events), (s.messages, s.events));
}

#[test]
fn the_uis_copy_of_the_cases_is_current() {
    let cases: Vec<Value> = cases()
        .into_iter()
        .map(|(name, s, n, _)| {
            let (mut messages, mut events) = (s.messages.clone(), s.events.clone());
            let omitted = keep_tail(&mut messages, &mut events, n);
            json!({
                "name": name,
                "tail": n,
                "whole": {"messages": s.messages, "events": s.events},
                "part": {"messages": messages, "events": events, "omitted": omitted},
            })
        })
        .collect();
    // One case per line: compact, and a diff still says which case changed.
    let lines: Vec<String> = cases.iter().map(Value::to_string).collect();
    let generated = format!(
        "{{\"_\": \"Generated by src-tauri/src/tail_tests.rs. Do not edit: \
         PADDOCK_UPDATE_GENERATED=1 cargo test -p paddock-desktop --lib tail\",\n\"cases\": [\n{}\n]}}\n",
        lines.join(",\n")
    );
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../ui/src/test/generated/tails.json");
    let how = "cargo test -p paddock-desktop --lib tail";
    paddock_protocol::generated::check_committed(&path, &generated, how).unwrap();
}
