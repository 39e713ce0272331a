//! Hooks that fail (time out, are killed, exit with another code, print JSON Paddock cannot
//! use) warn by default and hold back what they guard with `onError: "closed"`; everything
//! kept from their output is bounded.

use paddock_hooks::{Decision, HookProcess, MAX_TEXT_BYTES};
use serde_json::json;

use crate::common::{exited, one, outcome};

#[test]
fn a_timeout_warns_when_open_and_denies_or_blocks_when_closed() {
    let timed_out = HookProcess {
        exit_code: None,
        timed_out: true,
        ..HookProcess::default()
    };
    let open = outcome(&one("PreToolUse", json!({"timeout": 5})), &timed_out);
    assert_eq!(open.decision, Decision::Continue);
    assert_eq!(
        open.warning.as_deref(),
        Some("hook pre_tool_use · ./hook.sh timed out after 5 s")
    );
    let closed = outcome(
        &one("PreToolUse", json!({"timeout": 5, "onError": "closed"})),
        &timed_out,
    );
    assert_eq!(
        closed.decision,
        Decision::Deny {
            reason: "hook pre_tool_use · ./hook.sh timed out after 5 s".into()
        }
    );
    let claude = outcome(
        &one("UserPromptSubmit", json!({"onFailure": "block"})),
        &timed_out,
    );
    assert!(
        matches!(claude.decision, Decision::Block { reason } if reason.contains("timed out after 60 s"))
    );
    let stop = outcome(&one("Stop", json!({"onError": "closed"})), &timed_out);
    assert!(matches!(stop.decision, Decision::Block { .. }));
}

#[test]
fn other_exit_codes_and_kills_are_failures() {
    let open = one("PreToolUse", json!({}));
    let o = outcome(&open, &exited(1, "", "jq: command not found"));
    assert_eq!(o.decision, Decision::Continue);
    assert_eq!(
        o.warning.as_deref(),
        Some("hook pre_tool_use · ./hook.sh failed with exit code 1: jq: command not found")
    );
    let o = outcome(&open, &exited(127, "", ""));
    assert_eq!(
        o.warning.as_deref(),
        Some("hook pre_tool_use · ./hook.sh failed with exit code 127")
    );
    let killed = HookProcess {
        exit_code: None,
        ..HookProcess::default()
    };
    assert!(
        outcome(&open, &killed)
            .warning
            .unwrap()
            .contains("was stopped before it finished")
    );
    let closed = one("PreToolUse", json!({"onError": "closed"}));
    let o = outcome(&closed, &exited(1, "", "boom"));
    assert!(
        matches!(o.decision, Decision::Deny { reason } if reason.ends_with("exit code 1: boom"))
    );
    let o = outcome(
        &one("PostToolUse", json!({"onError": "closed"})),
        &exited(3, "", ""),
    );
    assert!(matches!(o.decision, Decision::Block { .. }));
}

#[test]
fn json_that_does_not_parse_is_a_failure_naming_the_hook() {
    let broken = exited(
        0,
        "{\"hookSpecificOutput\": {\"permissionDecision\": \"deny\"",
        "",
    );
    let o = outcome(&one("PreToolUse", json!({})), &broken);
    assert_eq!(o.decision, Decision::Continue);
    let warning = o.warning.unwrap();
    assert!(
        warning.starts_with(
            "hook pre_tool_use · ./hook.sh printed JSON Paddock cannot use: it does not parse"
        ),
        "{warning}"
    );
    let o = outcome(&one("PreToolUse", json!({"onError": "closed"})), &broken);
    assert!(matches!(o.decision, Decision::Deny { .. }));
    // A misspelt field is not a quiet "go ahead" either.
    let typo = exited(
        0,
        r#"{"hookSpecificOutput": {"permissionDecison": "deny"}}"#,
        "",
    );
    let o = outcome(&one("PreToolUse", json!({"onError": "closed"})), &typo);
    assert!(
        matches!(o.decision, Decision::Deny { reason } if reason.contains("permissionDecison"))
    );
    // Output cut by the host is said to be.
    let cut = HookProcess {
        output_truncated: true,
        ..exited(0, "{\"decision\": \"bl", "")
    };
    assert!(
        outcome(&one("Stop", json!({})), &cut)
            .warning
            .unwrap()
            .ends_with("[the hook's output was cut at the host's limit]")
    );
}

#[test]
fn huge_output_is_bounded_and_says_so() {
    let huge = "x".repeat(1 << 20);
    let o = outcome(&one("PreToolUse", json!({})), &exited(2, "", &huge));
    let reason = o.decision.reason().unwrap();
    assert!(reason.len() <= MAX_TEXT_BYTES, "{}", reason.len());
    assert!(
        reason.contains("[cut: "),
        "{}",
        &reason[reason.len() - 40..]
    );
    let o = outcome(&one("UserPromptSubmit", json!({})), &exited(0, &huge, ""));
    assert!(o.added_context.unwrap().len() <= MAX_TEXT_BYTES);
    let answer = format!(r#"{{"decision": "block", "reason": "{huge}"}}"#);
    let o = outcome(&one("Stop", json!({})), &exited(0, &answer, ""));
    assert!(o.decision.reason().unwrap().len() <= MAX_TEXT_BYTES);
    let o = outcome(
        &one("PreToolUse", json!({"onError": "closed"})),
        &exited(1, "", &huge),
    );
    assert!(o.decision.reason().unwrap().len() <= MAX_TEXT_BYTES);
    assert!(o.warning.unwrap().len() <= MAX_TEXT_BYTES);
    // Bytes that are not UTF-8 are replaced, not refused.
    let run = HookProcess {
        exit_code: Some(2),
        stderr: b"bad \xff byte",
        ..HookProcess::default()
    };
    assert_eq!(
        outcome(&one("PreToolUse", json!({})), &run)
            .decision
            .reason(),
        Some("bad \u{fffd} byte")
    );
}
