//! Property: whatever the model, the tools, the budget, loops and aborts do, the history
//! never holds a tool call without its result.

use std::time::Duration;

use paddock_core::protocol::{ErrorKind, ExitReason, StopReason};
use paddock_core::scripted::ScriptedTurn;
use paddock_core::{LoopConfig, LoopPolicy};
use proptest::prelude::*;
use serde_json::json;

use paddock_core::testing::*;

#[derive(Debug, Clone)]
enum CallKind {
    Echo(u8),
    Fail,
    Panic,
    Sleep(u8),
    Unknown,
    NotGranted,
    BadInput,
}

#[derive(Debug, Clone)]
enum Turn {
    Answer,
    Calls(Vec<CallKind>, u16),
    Error,
    Hang,
}

fn call_kind() -> impl Strategy<Value = CallKind> {
    prop_oneof![
        4 => (0u8..3).prop_map(CallKind::Echo),
        1 => Just(CallKind::Fail),
        1 => Just(CallKind::Panic),
        1 => (0u8..15).prop_map(CallKind::Sleep),
        1 => Just(CallKind::Unknown),
        1 => Just(CallKind::NotGranted),
        1 => Just(CallKind::BadInput),
    ]
}

fn turn() -> impl Strategy<Value = Turn> {
    prop_oneof![
        1 => Just(Turn::Answer),
        6 => (prop::collection::vec(call_kind(), 1..4), 0u16..80).prop_map(|(c, u)| Turn::Calls(c, u)),
        1 => Just(Turn::Error),
        1 => Just(Turn::Hang),
    ]
}

fn script(turns: &[Turn], abortable: bool) -> Vec<ScriptedTurn> {
    turns
        .iter()
        .map(|t| match t {
            Turn::Answer => ScriptedTurn::new()
                .delta("final")
                .usage(5, 5)
                .stop(StopReason::EndTurn),
            Turn::Error => ScriptedTurn::new()
                .delta("par")
                .error(ErrorKind::Server, "boom"),
            // A hanging model only ends by abort; without one it stands for a slow reply.
            Turn::Hang if abortable => ScriptedTurn::new().delta("wait").hang(),
            Turn::Hang => ScriptedTurn::new()
                .delay(Duration::from_millis(5))
                .delta("slow")
                .stop(StopReason::EndTurn),
            Turn::Calls(calls, usage) => {
                let mut st = ScriptedTurn::new().delta("working");
                for c in calls {
                    st = match c {
                        CallKind::Echo(n) => st.call("", "echo", json!({"text": n.to_string()})),
                        CallKind::Fail => st.call("", "act", json!({"action": "fail"})),
                        CallKind::Panic => st.call("", "act", json!({"action": "panic"})),
                        CallKind::Sleep(ms) => {
                            st.call("", "act", json!({"action": "sleep", "n": ms}))
                        }
                        CallKind::Unknown => st.call("", "nope", json!({})),
                        CallKind::NotGranted => st.call("", "bash", json!({"command": "id"})),
                        CallKind::BadInput => st.call("", "echo", json!({"text": [1]})),
                    };
                }
                st.usage(u64::from(*usage), 0).stop(StopReason::ToolUse)
            }
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn history_never_holds_an_unpaired_call(
        turns in prop::collection::vec(turn(), 0..9),
        budget in prop::option::of(0u64..300),
        max_turns in 0u32..9,
        loop_policy in prop::option::of(prop_oneof![Just(LoopPolicy::Warn), Just(LoopPolicy::Terminate)]),
        abort_after_ms in prop::option::of(0u64..40),
        second_prompt in any::<bool>(),
    ) {
        quiet_expected_panics();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().start_paused(true).build().unwrap();
        rt.block_on(async {
            let mut config = config_allowing(&["echo", "act"]);
            config.max_token_budget = budget;
            config.max_turns = max_turns;
            config.loop_detection = loop_policy.map(|policy| LoopConfig { policy, ..LoopConfig::default() });
            let mut h = harness(config, script(&turns, abort_after_ms.is_some()));
            let prompts = if second_prompt { 2 } else { 1 };
            for _ in 0..prompts {
                if let Some(ms) = abort_after_ms {
                    let handle = h.agent.handle();
                    tokio::spawn(async move {
                        tokio::time::sleep(Duration::from_millis(ms)).await;
                        handle.cancel();
                    });
                }
                let r = tokio::time::timeout(Duration::from_secs(10), h.agent.run("go"))
                    .await
                    .expect("a run hung");
                assert_paired(h.agent.new_messages(&r));
                assert_paired(h.agent.history());
                assert!(r.turns <= max_turns);
                if let Some(b) = budget
                    && r.exit == ExitReason::BudgetExceeded {
                        assert!(r.usage.total() > b);
                    }
            }
        });
    }
}
