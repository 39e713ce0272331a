//! A hook's JSON answer (it exited 0 and printed a JSON object), read for one event.
//!
//! The fields are Claude Code's (read 2026-12-06, <https://docs.anthropic.com/de/docs/claude-code/hooks>;
//! Codex reads the same ones, `codex-rs/hooks/src/engine/output_parser.rs` of
//! github.com/openai/codex): on every event `continue` (false: end the run), `stopReason`,
//! `suppressOutput`, `systemMessage`; `decision: "block"` with `reason` where something can
//! be held back; `hookSpecificOutput` with `hookEventName` and, per event,
//! `permissionDecision` (`allow`, `deny`, `ask`), `permissionDecisionReason`, `updatedInput`
//! and `additionalContext`; on `pre_tool_use` also the older `decision: "approve" | "block"`.
//!
//! An answer with a field this event does not have, a value of the wrong type, or another
//! event's `hookEventName` is refused whole, as Codex refuses it (nothing of it applies): a
//! misspelt `permissionDecison: "deny"` must not pass as a quiet "go ahead".

use crate::event::HookPointExt;
use serde_json::{Map, Value};

use crate::event::HookPoint;
use crate::text::bounded;

/// Largest `updatedInput` kept, as JSON text.
pub const MAX_REWRITTEN_INPUT_BYTES: usize = 1 << 20;

const COMMON: [&str; 4] = ["continue", "stopReason", "suppressOutput", "systemMessage"];
const PRE_TOOL_USE_SPECIFIC: [&str; 5] = [
    "hookEventName",
    "permissionDecision",
    "permissionDecisionReason",
    "updatedInput",
    "additionalContext",
];
const CONTEXT_SPECIFIC: [&str; 2] = ["hookEventName", "additionalContext"];

/// What the hook decided, before it is given the event's meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    Allow,
    Ask,
    Deny,
    Block,
}

/// A hook's answer, its texts bounded.
#[derive(Debug, Default)]
pub(crate) struct Answer {
    /// `continue: false`.
    pub(crate) end_run: bool,
    pub(crate) stop_reason: Option<String>,
    pub(crate) suppress_output: bool,
    pub(crate) system_message: Option<String>,
    pub(crate) verdict: Option<Verdict>,
    pub(crate) reason: Option<String>,
    pub(crate) updated_input: Option<Value>,
    pub(crate) additional_context: Option<String>,
}

/// Reads `text` (already known to start with `{`) as `event`'s answer; the error says what
/// about it Paddock cannot use.
pub(crate) fn read(event: HookPoint, text: &str) -> Result<Answer, String> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| format!("it does not parse as JSON ({e})"))?;
    let Value::Object(top) = value else {
        return Err("it is not a JSON object".to_owned());
    };
    let takes_decision = event.can_block();
    let takes_specific = matches!(
        event,
        HookPoint::PreToolUse
            | HookPoint::PostToolUse
            | HookPoint::UserPromptSubmit
            | HookPoint::SessionStart
    );
    for key in top.keys() {
        let known = COMMON.contains(&key.as_str())
            || (takes_decision && matches!(key.as_str(), "decision" | "reason"))
            || (takes_specific && key == "hookSpecificOutput");
        if !known {
            return Err(format!("a {event} hook cannot answer `{key}`"));
        }
    }
    let mut answer = Answer {
        end_run: !boolean(&top, "continue")?.unwrap_or(true),
        stop_reason: string(&top, "stopReason")?,
        suppress_output: boolean(&top, "suppressOutput")?.unwrap_or(false),
        system_message: string(&top, "systemMessage")?,
        reason: string(&top, "reason")?,
        ..Answer::default()
    };
    answer.verdict = match (event, string(&top, "decision")?.as_deref()) {
        (_, None) => None,
        (_, Some("block")) if event == HookPoint::PreToolUse => Some(Verdict::Deny),
        (HookPoint::PreToolUse, Some("approve")) => Some(Verdict::Allow),
        (_, Some("block")) => Some(Verdict::Block),
        (_, Some(other)) => return Err(format!("`decision` cannot be `{other}` here")),
    };
    if let Some(specific) = top.get("hookSpecificOutput").filter(|v| !v.is_null()) {
        let Value::Object(specific) = specific else {
            return Err("`hookSpecificOutput` is not an object".to_owned());
        };
        read_specific(event, specific, &mut answer)?;
    }
    Ok(answer)
}

fn read_specific(
    event: HookPoint,
    specific: &Map<String, Value>,
    answer: &mut Answer,
) -> Result<(), String> {
    let keys: &[&str] = if event == HookPoint::PreToolUse {
        &PRE_TOOL_USE_SPECIFIC
    } else {
        &CONTEXT_SPECIFIC
    };
    if let Some(key) = specific.keys().find(|k| !keys.contains(&k.as_str())) {
        return Err(format!(
            "a {event} hook cannot answer `hookSpecificOutput.{key}`"
        ));
    }
    if let Some(name) = string(specific, "hookEventName")?
        && name != event.claude_name()
        && name != event.name()
    {
        return Err(format!(
            "`hookEventName` is `{name}`, not `{}`",
            event.claude_name()
        ));
    }
    answer.additional_context = string(specific, "additionalContext")?;
    if event != HookPoint::PreToolUse {
        return Ok(());
    }
    match string(specific, "permissionDecision")?.as_deref() {
        None => {}
        Some(decision) => {
            answer.verdict = Some(match decision {
                "allow" => Verdict::Allow,
                "ask" => Verdict::Ask,
                "deny" => Verdict::Deny,
                "defer" => return Err("Paddock has no deferred decisions (`defer`)".to_owned()),
                other => return Err(format!("`permissionDecision` cannot be `{other}`")),
            });
            answer.reason = string(specific, "permissionDecisionReason")?;
        }
    }
    match specific.get("updatedInput") {
        None | Some(Value::Null) => {}
        Some(input @ Value::Object(_)) => {
            let size = input.to_string().len();
            if size > MAX_REWRITTEN_INPUT_BYTES {
                return Err(format!(
                    "`updatedInput` is {size} bytes, over the {MAX_REWRITTEN_INPUT_BYTES}-byte limit"
                ));
            }
            answer.updated_input = Some(input.clone());
        }
        Some(_) => return Err("`updatedInput` is not an object".to_owned()),
    }
    Ok(())
}

fn string(map: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(bounded(s)),
        Some(other) => Err(format!("`{key}` is not text ({other})")),
    }
}

fn boolean(map: &Map<String, Value>, key: &str) -> Result<Option<bool>, String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(other) => Err(format!("`{key}` is not true or false ({other})")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pre_tool_use_answers() {
        let a = read(
            HookPoint::PreToolUse,
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}}"#,
        )
        .unwrap();
        assert_eq!(a.verdict, Some(Verdict::Deny));
        assert_eq!(a.reason.as_deref(), Some("no"));
        let a = read(
            HookPoint::PreToolUse,
            r#"{"decision": "approve", "reason": "ok"}"#,
        )
        .unwrap();
        assert_eq!(a.verdict, Some(Verdict::Allow));
    }

    #[test]
    fn answers_an_event_does_not_have_are_refused() {
        let e = |event, text| read(event, text).unwrap_err();
        assert!(
            e(HookPoint::PreToolUse, r#"{"permissionDecison": "deny"}"#)
                .contains("permissionDecison")
        );
        assert!(e(HookPoint::SessionStart, r#"{"decision": "block"}"#).contains("decision"));
        assert!(e(HookPoint::Stop, r#"{"hookSpecificOutput": {}}"#).contains("hookSpecificOutput"));
        assert!(e(HookPoint::Stop, r#"{"decision": "approve"}"#).contains("approve"));
        assert!(
            e(
                HookPoint::PostToolUse,
                r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse"}}"#
            )
            .contains("hookEventName")
        );
        assert!(e(HookPoint::PreToolUse, r#"{"continue": "no"}"#).contains("continue"));
        assert!(
            e(
                HookPoint::PreToolUse,
                r#"{"hookSpecificOutput": {"updatedInput": 3}}"#
            )
            .contains("updatedInput")
        );
        assert!(e(HookPoint::PreToolUse, r#"{"a": 1"#).contains("parse"));
    }
}
