//! delegate_to_agent: hand-off, nested events, usage roll-up and every guard.

use std::sync::Arc;
use std::time::Duration;

use paddock_core::protocol::{AgentEvent, ExitReason, StopReason, TokenUsage, ToolPreset};
use paddock_core::scripted::{ScriptedModel, ScriptedTurn};
use paddock_core::tool::typed;
use paddock_core::{Agent, AgentConfig, CollectSink, GrantPolicy};
use paddock_tools::{Team, TeamMember, registry_with_team};
use serde_json::json;

use paddock_core::testing::*;

fn member(
    name: &str,
    turns: Vec<ScriptedTurn>,
    grants: GrantPolicy,
) -> (TeamMember, ScriptedModel) {
    let model = ScriptedModel::recording(turns);
    let mut config = AgentConfig::new(name, "teammate-model");
    config.grants = grants;
    (
        TeamMember {
            config,
            model: Arc::new(model.clone()),
        },
        model,
    )
}

fn delegate(to: &str, task: &str) -> ScriptedTurn {
    ScriptedTurn::tools(&[("delegate_to_agent", json!({"agent": to, "task": task}))])
}

struct Setup {
    agent: Agent,
    model: ScriptedModel,
    events: Arc<CollectSink>,
}

fn setup(team: Team, main_grants: GrantPolicy, main_turns: Vec<ScriptedTurn>) -> Setup {
    let mut config = AgentConfig::new("main", "main-model");
    config.grants = main_grants;
    setup_with(team, config, main_turns)
}

fn setup_with(team: Team, config: AgentConfig, main_turns: Vec<ScriptedTurn>) -> Setup {
    let registry = registry_with_team(Some(team), |r| r.register(typed(Echo))).unwrap();
    let model = ScriptedModel::recording(main_turns);
    let events = CollectSink::new();
    let agent = Agent::new(config, Arc::new(model.clone()), registry).with_events(events.clone());
    Setup {
        agent,
        model,
        events,
    }
}

fn delegating() -> GrantPolicy {
    GrantPolicy::allowing(&["delegate_to_agent"])
}

#[tokio::test(start_paused = true)]
async fn hand_off_returns_the_teammates_answer_and_counts_its_usage() {
    let (helper, helper_model) = member(
        "helper",
        vec![
            ScriptedTurn::new()
                .delta("the answer is 42")
                .usage(100, 50)
                .stop(StopReason::EndTurn),
        ],
        GrantPolicy::default(),
    );
    let mut s = setup(
        Team::new([helper]),
        delegating(),
        vec![
            delegate("helper", "compute").usage(10, 5),
            ScriptedTurn::new()
                .delta("done")
                .usage(1, 1)
                .stop(StopReason::EndTurn),
        ],
    );
    let r = s.agent.run("go").await;
    assert_eq!(r.exit, ExitReason::EndTurn);
    assert_eq!(
        last_results(s.agent.history()),
        vec![("the answer is 42".to_owned(), false)]
    );
    assert_eq!(r.usage, TokenUsage::new(111, 56));
    assert_eq!(helper_model.requests()[0].messages[0].text(), "compute");
    let nested: Vec<_> = s
        .events
        .events()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::Delegated {
                agent,
                depth,
                event,
                ..
            } => Some((agent, depth, *event)),
            _ => None,
        })
        .collect();
    assert!(nested.iter().any(|(a, d, e)| a == "helper"
        && *d == 1
        && matches!(e, AgentEvent::TextDelta { text } if text == "the answer is 42")));
    assert!(nested.iter().any(|(_, _, e)| matches!(
        e,
        AgentEvent::RunFinished {
            exit: ExitReason::EndTurn,
            ..
        }
    )));
}

#[tokio::test(start_paused = true)]
async fn delegated_usage_counts_toward_the_budget() {
    let (helper, _) = member(
        "helper",
        vec![
            ScriptedTurn::new()
                .delta("big")
                .usage(500, 500)
                .stop(StopReason::EndTurn),
        ],
        GrantPolicy::default(),
    );
    let mut config = AgentConfig::new("main", "main-model");
    config.grants = delegating();
    config.max_token_budget = Some(100);
    let mut s = setup_with(
        Team::new([helper]),
        config,
        vec![
            delegate("helper", "x").usage(10, 10),
            ScriptedTurn::text("never"),
        ],
    );
    let r = s.agent.run("go").await;
    assert_eq!(r.exit, ExitReason::BudgetExceeded);
    assert_eq!(r.usage.total(), 1020);
    assert_eq!(s.model.requests().len(), 1);
    assert_paired(s.agent.history());
}

async fn refusal(team: Team, main_turns: Vec<ScriptedTurn>) -> String {
    let mut s = setup(team, delegating(), main_turns);
    s.agent.run("go").await;
    let (content, is_error) = last_results(s.agent.history()).remove(0);
    assert!(is_error, "{content}");
    content
}

#[tokio::test(start_paused = true)]
async fn refuses_self_unknown_and_lists_the_roster() {
    let (main_member, _) = member("main", vec![], GrantPolicy::default());
    let (helper, _) = member("helper", vec![], GrantPolicy::default());
    let msg = refusal(
        Team::new([main_member, helper]),
        vec![delegate("main", "x"), ScriptedTurn::text("ok")],
    )
    .await;
    assert!(msg.contains("cannot delegate to itself"), "{msg}");

    let (helper, _) = member("helper", vec![], GrantPolicy::default());
    let (writer, _) = member("writer", vec![], GrantPolicy::default());
    let msg = refusal(
        Team::new([helper, writer]),
        vec![delegate("nobody", "x"), ScriptedTurn::text("ok")],
    )
    .await;
    assert_eq!(
        msg,
        "Error: no teammate named 'nobody'. Teammates: helper, writer"
    );
}

#[tokio::test(start_paused = true)]
async fn refuses_a_cycle_and_shows_the_chain() {
    // main -> helper -> main
    let (helper, _) = member(
        "helper",
        vec![
            delegate("main", "back to you"),
            ScriptedTurn::text("gave up"),
        ],
        delegating(),
    );
    let (main_member, _) = member("main", vec![], GrantPolicy::default());
    let mut s = setup(
        Team::new([helper, main_member]),
        delegating(),
        vec![delegate("helper", "x"), ScriptedTurn::text("ok")],
    );
    s.agent.run("go").await;
    let cycle = s.events.events().into_iter().find_map(|e| match e {
        AgentEvent::Delegated { event, .. } => match *event {
            AgentEvent::ToolCallFinished {
                output,
                is_error: true,
                ..
            } => Some(output),
            _ => None,
        },
        _ => None,
    });
    assert_eq!(
        cycle.unwrap(),
        "Error: delegating to 'main' would form a cycle: main -> helper -> main"
    );
    assert_eq!(
        last_results(s.agent.history()),
        vec![("gave up".to_owned(), false)]
    );
}

#[tokio::test(start_paused = true)]
async fn refuses_beyond_the_depth_limit() {
    let (helper, _) = member(
        "helper",
        vec![delegate("deep", "x"), ScriptedTurn::text("stopped")],
        delegating(),
    );
    let (deep, deep_model) = member(
        "deep",
        vec![ScriptedTurn::text("unreachable")],
        GrantPolicy::default(),
    );
    let mut s = setup(
        Team::new([helper, deep]).with_max_depth(1),
        delegating(),
        vec![delegate("helper", "x"), ScriptedTurn::text("ok")],
    );
    s.agent.run("go").await;
    assert!(deep_model.requests().is_empty());
    let refused = s.events.events().into_iter().any(|e| matches!(e,
        AgentEvent::Delegated { event, .. } if matches!(&*event, AgentEvent::ToolCallFinished { output, .. } if output.contains("depth limit reached (1 of 1)"))));
    assert!(refused);
}

#[tokio::test(start_paused = true)]
async fn refuses_when_no_slot_is_free() {
    let slow = || {
        vec![
            ScriptedTurn::new()
                .delay(Duration::from_millis(100))
                .delta("slow")
                .stop(StopReason::EndTurn),
        ]
    };
    let (a, _) = member("a", slow(), GrantPolicy::default());
    let (b, _) = member("b", slow(), GrantPolicy::default());
    let mut s = setup(
        Team::new([a, b]).with_slots(1),
        delegating(),
        vec![
            ScriptedTurn::tools(&[
                ("delegate_to_agent", json!({"agent": "a", "task": "x"})),
                ("delegate_to_agent", json!({"agent": "b", "task": "y"})),
            ]),
            ScriptedTurn::text("ok"),
        ],
    );
    s.agent.run("go").await;
    let results = last_results(s.agent.history());
    assert_eq!(results[0], ("slow".to_owned(), false));
    assert!(results[1].1);
    assert!(
        results[1].0.contains("no free teammate slot"),
        "{}",
        results[1].0
    );
}

#[tokio::test(start_paused = true)]
async fn delegation_is_in_no_preset() {
    let (helper, helper_model) = member(
        "helper",
        vec![ScriptedTurn::text("x")],
        GrantPolicy::default(),
    );
    let mut s = setup(
        Team::new([helper]),
        GrantPolicy::with_preset(ToolPreset::Full),
        vec![delegate("helper", "x"), ScriptedTurn::text("ok")],
    );
    s.agent.run("go").await;
    assert!(helper_model.requests().is_empty());
    assert!(last_results(s.agent.history())[0].0.contains("not granted"));
}

#[tokio::test(start_paused = true)]
async fn a_teammate_that_stops_early_is_an_error_result_with_its_reason() {
    let mut cfg_turns = Vec::new();
    for i in 0..3 {
        cfg_turns.push(ScriptedTurn::tools(&[(
            "echo",
            json!({"text": i.to_string()}),
        )]));
    }
    let (mut helper, _) = member("helper", cfg_turns, GrantPolicy::allowing(&["echo"]));
    helper.config.max_turns = 2;
    let msg = refusal(
        Team::new([helper]),
        vec![delegate("helper", "x"), ScriptedTurn::text("ok")],
    )
    .await;
    assert!(
        msg.contains("teammate 'helper' stopped early (max_turns)"),
        "{msg}"
    );
}
