//! Argument rules refine grants call by call: deny beats ask beats allow, no match falls back
//! to the tool's grant, rules can show a tool the lists leave out but never lift the
//! framework's deny, a ceiling or a caller's limit; every decision says why.

use std::sync::Arc;

use paddock_core::protocol::{AgentEvent, DenyReason, Grant, ToolPreset, ToolStatus};
use paddock_core::scripted::ScriptedTurn;
use paddock_core::{CallRules, Gate, GrantPolicy, RuleBook, RuleVerdict};
use serde_json::{Value, json};

use paddock_core::testing::*;

/// bash calls: "ok*" allowed, "ask*" asks, "no*" denied, anything else unmatched.
struct Words;

impl CallRules for Words {
    fn decide(&self, tool: &str, input: &Value) -> RuleVerdict {
        let command = input["command"].as_str().unwrap_or_default();
        let action = match (tool, command.split(' ').next()) {
            ("bash", Some(w)) if w.starts_with("ok") => Some(Grant::Allow),
            ("bash", Some(w)) if w.starts_with("ask") => Some(Grant::Ask),
            ("bash", Some(w)) if w.starts_with("no") => Some(Grant::Deny),
            _ => None,
        };
        RuleVerdict {
            why: match action {
                Some(a) => format!("rule for {command:?}: {a:?}"),
                None => format!("no rule matches {command:?}"),
            },
            action,
        }
    }
    fn may_allow(&self, tool: &str) -> bool {
        tool == "bash"
    }
    fn propose(&self, _tool: &str, input: &Value) -> Option<Vec<String>> {
        Some(vec![input["command"].as_str()?.to_owned()])
    }
}

fn policy(preset: ToolPreset) -> GrantPolicy {
    let mut p = GrantPolicy::with_preset(preset);
    p.rules = RuleBook::new(Some(Arc::new(Words)));
    p
}

#[test]
fn rules_refine_the_tools_grant_per_call() {
    let act = Arc::default();
    let tools = policy(ToolPreset::Full).resolve(&registry(&act));
    let gate = |cmd: &str| tools.check_call("bash", &json!({"command": cmd}));
    assert_eq!(gate("ok go").gate, Gate::Allow);
    assert_eq!(gate("ask me").gate, Gate::Ask);
    let denied = gate("no way");
    assert_eq!((denied.gate, denied.by_rule), (Gate::NotGranted, true));
    assert!(denied.why.contains("no way"), "{}", denied.why);
    let fallback = gate("other");
    assert_eq!(fallback.gate, Gate::Allow, "the tool's own grant");
    assert!(fallback.why.contains("no rule matches"), "{}", fallback.why);
    // Tools the rules do not speak of are untouched.
    assert_eq!(tools.check_call("file_read", &json!({})).gate, Gate::Allow);
}

#[test]
fn rules_show_a_tool_the_lists_leave_out_but_unmatched_calls_stay_denied() {
    let act = Arc::default();
    let tools = policy(ToolPreset::Readonly).resolve(&registry(&act));
    assert!(
        tools.specs().iter().any(|s| s.name == "bash"),
        "told about bash"
    );
    let gate = |cmd: &str| tools.check_call("bash", &json!({"command": cmd})).gate;
    assert_eq!(gate("ok go"), Gate::Allow);
    assert_eq!(gate("other"), Gate::NotGranted);
    assert!(
        !tools.grants().contains_key("bash"),
        "a teammate gets no blanket bash"
    );
}

#[test]
fn the_framework_deny_a_ceiling_and_a_callers_limit_stay_above_rules() {
    let act = Arc::default();
    let mut framework = policy(ToolPreset::Full);
    framework.framework_deny = vec![("bash".into(), "no sandbox".into())];
    let tools = framework.resolve(&registry(&act));
    assert!(!tools.specs().iter().any(|s| s.name == "bash"));
    assert_eq!(
        tools.check_call("bash", &json!({"command": "ok go"})).gate,
        Gate::NotGranted
    );

    let mut ceiling = policy(ToolPreset::Full);
    ceiling.ceiling = Some(ToolPreset::Readonly);
    let tools = ceiling.resolve(&registry(&act));
    assert_eq!(
        tools.check_call("bash", &json!({"command": "ok go"})).gate,
        Gate::NotGranted
    );

    let mut teammate = policy(ToolPreset::Full);
    teammate.limit = Some(Arc::new([("bash".to_owned(), Grant::Ask)].into()));
    let tools = teammate.resolve(&registry(&act));
    assert_eq!(
        tools.check_call("bash", &json!({"command": "ok go"})).gate,
        Gate::Ask,
        "the caller asks for bash: an allow rule does not lift that"
    );
}

#[tokio::test(start_paused = true)]
async fn a_rule_denial_is_a_result_that_says_which_rule_and_a_replaced_book_applies_at_once() {
    let mut config = config_with_preset(ToolPreset::Full);
    let book = RuleBook::new(Some(Arc::new(Words)));
    config.grants.rules = book.clone();
    let mut h = harness(
        config,
        vec![
            ScriptedTurn::tools(&[("bash", json!({"command": "no thanks"}))]),
            ScriptedTurn::text("ok"),
        ],
    );
    h.agent.run("go").await;
    let finished: Vec<(ToolStatus, String, String)> = h
        .events
        .events()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::ToolCallFinished {
                status,
                output,
                why,
                ..
            } => Some((status, output.to_string(), why)),
            _ => None,
        })
        .collect();
    assert_eq!(
        finished[0].0,
        ToolStatus::Denied {
            reason: DenyReason::Rule
        }
    );
    assert!(finished[0].1.contains("no thanks"), "{}", finished[0].1);
    assert!(
        finished[0].2.contains("no thanks"),
        "the why travels: {}",
        finished[0].2
    );
    assert_eq!(h.act.runs.load(std::sync::atomic::Ordering::SeqCst), 0);

    // The book is shared: emptied, the next call falls back to the grant.
    book.replace(None);
    let act = Arc::default();
    let tools = GrantPolicy {
        rules: book,
        ..GrantPolicy::with_preset(ToolPreset::Full)
    }
    .resolve(&registry(&act));
    assert_eq!(
        tools
            .check_call("bash", &json!({"command": "no thanks"}))
            .gate,
        Gate::Allow
    );
}
