//! Argument rules in the app: "Always allow" saves the proposed rule as the user's own
//! (trusted) change, the next identical call runs without asking, a chained part the rule
//! does not cover still asks, and "Test a call" answers from the same rules.

use std::sync::Arc;

use paddock_desktop::{grants, runs};
use paddock_fake_model::{FakeServer, Reply};
use paddock_protocol::{AgentEvent, AppErrorCode, Grant, RuleEntry};
use serde_json::json;
use tokio::sync::mpsc;

use crate::common::{events_until, finished, setup};

fn approval(events: &[AgentEvent]) -> (String, String, Vec<String>) {
    match events.last() {
        Some(AgentEvent::ApprovalRequested {
            request_id,
            why,
            proposed_rules,
            ..
        }) => (
            request_id.clone(),
            why.clone(),
            proposed_rules.clone().unwrap_or_default(),
        ),
        other => panic!("not an approval: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_allow_saves_a_rule_that_the_next_call_meets() {
    let fake = FakeServer::start().await.unwrap();
    for command in ["echo one", "echo one", "echo one && touch pwned"] {
        fake.push(Reply::tool_call("bash", json!({ "command": command })));
    }
    fake.push(Reply::text("done"));
    let s = setup(
        &fake,
        json!({"tools": {"bash": "ask"}, "allowUnconfinedBash": true}),
    );
    let (tx, mut rx) = mpsc::unbounded_channel();
    let id = runs::send_prompt(&s.desktop, &s.root, None, "go", None, Arc::new(tx))
        .await
        .unwrap();

    let events = events_until(&mut rx, |e| {
        matches!(e, AgentEvent::ApprovalRequested { .. })
    })
    .await;
    let (request, why, proposed) = approval(&events);
    assert!(why.contains("ask"), "{why}");
    assert_eq!(proposed, ["echo one"]);
    let empty = grants::always_allow(&s.desktop, &s.root, &id, &request, "bash", &[]);
    assert_eq!(empty.unwrap_err().code, AppErrorCode::Invalid);
    grants::always_allow(&s.desktop, &s.root, &id, &request, "bash", &proposed).unwrap();

    // The second, identical call runs without asking; the chained one asks again.
    let events = events_until(&mut rx, |e| {
        matches!(e, AgentEvent::ApprovalRequested { .. })
    })
    .await;
    let finished_calls: Vec<&AgentEvent> = events
        .iter()
        .filter(|e| matches!(e, AgentEvent::ToolCallFinished { .. }))
        .collect();
    assert_eq!(finished_calls.len(), 2, "{events:#?}");
    let AgentEvent::ToolCallFinished { why, is_error, .. } = finished_calls[1] else {
        unreachable!()
    };
    assert!(!is_error && why.contains("rules.bash[0]"), "{why}");
    let (request, why, proposed) = approval(&events);
    assert!(why.contains("touch pwned"), "{why}");
    assert_eq!(proposed, ["echo one", "touch pwned"]);
    s.desktop
        .runs()
        .approve(
            &s.root,
            &id,
            &request,
            paddock_protocol::ApprovalDecision::Deny,
        )
        .unwrap();
    events_until(&mut rx, finished).await;
    assert!(!s.root.join(".agent-workspace/pwned").exists());

    // Saved as the user's change: in the file, trusted, and what "Test a call" meets.
    let saved = paddock_host::settings::load(&s.root).unwrap();
    assert_eq!(saved.rules["bash"], [RuleEntry::Allow("echo one".into())]);
    let pending = s.desktop.trust().assess(&s.root, &saved).report.pending;
    assert!(pending.is_empty(), "{pending:?}");
    let e = grants::explain_call(&s.desktop, &s.root, "bash", "echo  'one'").unwrap();
    assert_eq!((e.decision, e.by_rule), (Grant::Allow, true), "{e:?}");
    let e = grants::explain_call(&s.desktop, &s.root, "bash", "echo two").unwrap();
    assert_eq!(e.decision, Grant::Ask, "{e:?}");
    assert_eq!(e.proposed_rules, ["echo two"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rules_are_edited_whole_and_checked() {
    let fake = FakeServer::start().await.unwrap();
    let s = setup(&fake, json!({"tools": {"bash": "ask"}}));
    let rules = vec![
        RuleEntry::Deny("rm *".into()),
        RuleEntry::Allow("ls *".into()),
    ];
    grants::set_rules(&s.desktop, &s.root, "bash", rules.clone())
        .await
        .unwrap();
    assert_eq!(
        paddock_host::settings::load(&s.root).unwrap().rules["bash"],
        rules
    );
    let e = grants::explain_call(&s.desktop, &s.root, "bash", "ls -la && rm x").unwrap();
    assert_eq!(e.decision, Grant::Deny, "{e:?}");
    let bad = grants::set_rules(
        &s.desktop,
        &s.root,
        "bash",
        vec![RuleEntry::Allow(String::new())],
    )
    .await
    .unwrap_err();
    assert_eq!(bad.code, AppErrorCode::Invalid);
    assert!(bad.message.contains("rules.bash[0]"), "{}", bad.message);
    assert_eq!(
        paddock_host::settings::load(&s.root).unwrap().rules["bash"],
        rules,
        "a refused edit leaves the file as it was"
    );
    grants::set_rules(&s.desktop, &s.root, "bash", Vec::new())
        .await
        .unwrap();
    assert!(
        paddock_host::settings::load(&s.root)
            .unwrap()
            .rules
            .is_empty()
    );
}

/// The same untrusted folder as the CLI's `untrusted_allow_rules_do_not_count`: "Test a call"
/// gives the answer `paddock rules explain` gives, since both ask `host::edit::in_effect`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn untrusted_allow_rules_do_not_count_here_either() {
    let fake = FakeServer::start().await.unwrap();
    let s = setup(&fake, json!({}));
    crate::common::write_settings(
        &s.root,
        &json!({"version": 1, "preset": "readonly", "tools": {"bash": "ask"},
                "rules": {"bash": [{"allow": "curl *"}, {"deny": "ls *"}]}}),
    );
    let e = grants::explain_call(&s.desktop, &s.root, "bash", "curl evil.example").unwrap();
    assert_eq!(
        e.decision,
        Grant::Deny,
        "bash itself waits for trust: {e:?}"
    );
    assert!(!e.by_rule, "{e:?}");
    // Trusted, the allow rule counts.
    let written = paddock_host::settings::load(&s.root).unwrap();
    s.desktop.trust().trust(&s.root, &written).unwrap();
    let e = grants::explain_call(&s.desktop, &s.root, "bash", "curl evil.example").unwrap();
    assert_eq!((e.decision, e.by_rule), (Grant::Allow, true), "{e:?}");
}
