//! Each event's reading of a hook that exits 0 or 2: JSON answers, plain text, exit code 2.

use paddock_hooks::{Decision, EndRun, HookEffect, HooksConfig, combine};
use serde_json::json;

use crate::common::{exited, one, outcome};

fn pre() -> HooksConfig {
    one("PreToolUse", json!({}))
}

fn deny(reason: &str) -> Decision {
    Decision::Deny {
        reason: reason.to_owned(),
    }
}

fn block(reason: &str) -> Decision {
    Decision::Block {
        reason: reason.to_owned(),
    }
}

#[test]
fn pre_tool_use_exit_2_denies_with_stderr() {
    let o = outcome(
        &pre(),
        &exited(2, "{\"decision\": \"approve\"}", "  no pushes to main\n"),
    );
    assert_eq!(
        o.decision,
        deny("no pushes to main"),
        "stdout is not read on exit 2"
    );
}

#[test]
fn pre_tool_use_permission_decisions() {
    let answer = |d: &str| {
        format!(
            r#"{{"hookSpecificOutput": {{"hookEventName": "PreToolUse", "permissionDecision": "{d}", "permissionDecisionReason": "because"}}}}"#
        )
    };
    let reason = Some("because".to_owned());
    assert_eq!(
        outcome(&pre(), &exited(0, &answer("deny"), "")).decision,
        deny("because")
    );
    assert_eq!(
        outcome(&pre(), &exited(0, &answer("ask"), "")).decision,
        Decision::Ask {
            reason: reason.clone()
        }
    );
    assert_eq!(
        outcome(&pre(), &exited(0, &answer("allow"), "")).decision,
        Decision::Allow { reason }
    );
}

#[test]
fn pre_tool_use_older_decisions_and_rewritten_input() {
    let o = outcome(
        &pre(),
        &exited(0, r#"{"decision": "block", "reason": "not that"}"#, ""),
    );
    assert_eq!(o.decision, deny("not that"));
    let o = outcome(&pre(), &exited(0, r#"{"decision": "approve"}"#, ""));
    assert_eq!(o.decision, Decision::Allow { reason: None });
    let rewrite = r#"{"hookSpecificOutput": {"permissionDecision": "allow",
        "updatedInput": {"command": "git push --dry-run"}, "additionalContext": "dry run only"}}"#;
    let o = outcome(&pre(), &exited(0, rewrite, ""));
    assert_eq!(
        o.rewritten_input,
        Some(json!({"command": "git push --dry-run"}))
    );
    assert_eq!(o.added_context.as_deref(), Some("dry run only"));
    let contradictory =
        r#"{"hookSpecificOutput": {"permissionDecision": "deny", "updatedInput": {"a": 1}}}"#;
    let o = outcome(&pre(), &exited(0, contradictory, ""));
    assert!(matches!(o.decision, Decision::Deny { .. }));
    assert_eq!(o.rewritten_input, None);
    assert!(o.warning.unwrap().contains("rewrite is dropped"));
}

#[test]
fn continue_false_ends_the_run_on_any_event() {
    for event in [
        "PreToolUse",
        "PostToolUse",
        "UserPromptSubmit",
        "SessionStart",
        "Stop",
        "PreCompact",
    ] {
        let o = outcome(
            &one(event, json!({})),
            &exited(
                0,
                r#"{"continue": false, "stopReason": "build is red", "systemMessage": "see CI"}"#,
                "",
            ),
        );
        assert_eq!(
            o.stop,
            Some(EndRun {
                reason: "build is red".into()
            }),
            "{event}"
        );
        assert_eq!(o.system_message.as_deref(), Some("see CI"), "{event}");
        assert_eq!(o.decision, Decision::Continue, "{event}");
    }
}

#[test]
fn post_tool_use_blocks_are_feedback_and_plain_stdout_is_not_context() {
    let post = one("post_tool_use", json!({}));
    assert_eq!(
        outcome(&post, &exited(2, "", "lint failed: x.rs:3")).decision,
        block("lint failed: x.rs:3")
    );
    let o = outcome(
        &post,
        &exited(
            0,
            r#"{"decision": "block", "reason": "tests fail",
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "3 failures"}}"#,
            "",
        ),
    );
    assert_eq!(o.decision, block("tests fail"));
    assert_eq!(o.added_context.as_deref(), Some("3 failures"));
    assert_eq!(
        outcome(&post, &exited(0, "formatted 1 file", "")),
        HookEffect::default()
    );
}

#[test]
fn user_prompt_submit_blocks_the_prompt_and_adds_plain_text_as_context() {
    let prompt = one("UserPromptSubmit", json!({}));
    assert_eq!(
        outcome(&prompt, &exited(2, "", "prompt holds a key")).decision,
        block("prompt holds a key")
    );
    let o = outcome(&prompt, &exited(0, "Current branch: main\n", ""));
    assert_eq!(o.added_context.as_deref(), Some("Current branch: main"));
    assert_eq!(o.decision, Decision::Continue);
    let o = outcome(&prompt, &exited(0, r#"{"decision": "block"}"#, ""));
    assert!(
        matches!(o.decision, Decision::Block { reason } if reason.starts_with("blocked by hook user_prompt_submit"))
    );
}

#[test]
fn stop_exit_2_keeps_the_agent_going_with_stderr_as_its_instruction() {
    for event in ["Stop", "subagent_stop"] {
        let stop = one(event, json!({}));
        assert_eq!(
            outcome(&stop, &exited(2, "", "tests still fail; fix them")).decision,
            block("tests still fail; fix them")
        );
        assert_eq!(
            outcome(&stop, &exited(0, "done", "")).decision,
            Decision::Continue
        );
        let o = outcome(
            &stop,
            &exited(0, r#"{"decision": "block", "reason": "run the tests"}"#, ""),
        );
        assert_eq!(o.decision, block("run the tests"));
    }
}

#[test]
fn session_start_and_pre_compact_cannot_block() {
    let start = one("SessionStart", json!({}));
    let o = outcome(&start, &exited(2, "", "could not read the issue tracker"));
    assert_eq!(o.decision, Decision::Continue);
    assert_eq!(
        o.warning.as_deref(),
        Some("could not read the issue tracker")
    );
    let o = outcome(
        &start,
        &exited(
            0,
            r#"{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "open issues: 3"}}"#,
            "",
        ),
    );
    assert_eq!(o.added_context.as_deref(), Some("open issues: 3"));
    let compact = one("pre_compact", json!({}));
    let o = outcome(&compact, &exited(2, "", "saved nothing"));
    assert_eq!(
        (o.decision, o.warning.as_deref()),
        (Decision::Continue, Some("saved nothing"))
    );
    // Plain stdout is not context at a compaction.
    assert_eq!(
        outcome(&compact, &exited(0, "saved", "")).added_context,
        None
    );
}

#[test]
fn combined_outcomes_take_the_most_severe_decision() {
    let allow = HookEffect {
        decision: Decision::Allow { reason: None },
        added_context: Some("a".into()),
        ..HookEffect::default()
    };
    let denied = HookEffect {
        decision: deny("no"),
        added_context: Some("b".into()),
        ..HookEffect::default()
    };
    let o = combine([allow.clone(), denied, HookEffect::default()]);
    assert_eq!(o.decision, deny("no"));
    assert_eq!(o.added_context.as_deref(), Some("a\n\nb"));
    assert_eq!(
        combine([allow.clone()]).decision,
        Decision::Allow { reason: None }
    );
    assert_eq!(combine(Vec::new()), HookEffect::default());
    // Two rewrites cancel out, and the call asks.
    let rewrite = |v| HookEffect {
        decision: Decision::Allow { reason: None },
        rewritten_input: Some(json!({"command": v})),
        ..HookEffect::default()
    };
    let o = combine([rewrite("a"), rewrite("b")]);
    assert_eq!(o.rewritten_input, None);
    assert!(matches!(o.decision, Decision::Ask { .. }));
    assert!(o.warning.unwrap().contains("2 hooks rewrote"));
    assert_eq!(
        combine([rewrite("a"), allow]).rewritten_input,
        Some(json!({"command": "a"}))
    );
}
