//! The moments a hook can run, by Paddock's names with Claude Code's (and Codex's, which are
//! the same) as aliases; and the events those tools have that Paddock does not, refused by
//! name with the reason.
//!
//! Sources, read 2026-12-06: Claude Code's hooks reference
//! (<https://docs.anthropic.com/de/docs/claude-code/hooks>, the official translation of
//! <https://code.claude.com/docs/en/hooks>) and Codex's event list
//! (<https://developers.openai.com/codex/hooks>; the names in `HookPointsToml`,
//! `codex-rs/config/src/hook_config.rs` of github.com/openai/codex).

use crate::error::HookConfigError;

/// A moment in a run at which hooks may run: the protocol's [`HookPoint`], one type for the
/// settings, the runner and the transcript.
pub use paddock_protocol::HookPoint;

/// What a hook's matcher is matched against, per event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MatcherKind {
    /// The tool's name (Paddock's, or Claude Code's for the same tool).
    Tool,
    /// How the session began: `startup`, `resume` (Claude Code also names `clear`, `compact`).
    SessionSource,
    /// What asked for the compaction: `manual` or `auto`.
    CompactTrigger,
    /// Nothing: the event takes no matcher.
    Nothing,
}

/// Events Claude Code or Codex have and Paddock does not, each with the reason.
const UNSUPPORTED: [(&str, &str); 14] = [
    (
        "Notification",
        "Paddock shows its own notices (approval requests, finished runs) and runs no command for them",
    ),
    (
        "SessionEnd",
        "a Paddock session has no end: it can be resumed at any time",
    ),
    (
        "PermissionRequest",
        "Paddock asks through its own approval card; a pre_tool_use hook can answer allow, ask or deny",
    ),
    (
        "PermissionDenied",
        "Paddock has no automatic classifier whose refusals a hook could retry",
    ),
    (
        "PostToolUseFailure",
        "Paddock has no separate event for failed calls",
    ),
    ("PostToolBatch", "Paddock has no event for a batch of calls"),
    (
        "PostCompact",
        "Paddock has no event after a compaction; use pre_compact",
    ),
    (
        "SubagentStart",
        "Paddock has no event when a teammate starts",
    ),
    (
        "UserPromptExpansion",
        "Paddock's saved prompts are expanded before user_prompt_submit, which sees the result",
    ),
    ("Setup", "Paddock has no setup run"),
    ("StopFailure", "Paddock has no event for a failed stop"),
    ("PreModelSwitch", "Paddock has no event for a model switch"),
    ("PostModelSwitch", "Paddock has no event for a model switch"),
    ("FileChanged", "Paddock runs no hooks on file changes"),
];

/// What hooks know of a point beyond its name.
pub trait HookPointExt {
    /// Claude Code's (and Codex's) name: `PreToolUse`. Also the `hookEventName` a hook's
    /// JSON output names.
    fn claude_name(&self) -> &'static str;
    /// Whether the point is about one tool call (`pre_tool_use`, `post_tool_use`).
    fn is_tool_event(&self) -> bool;
    /// Whether a hook of this point can hold anything back (a call, a prompt, a stop). A
    /// session start or a compaction cannot be: their hooks only add context or warn.
    fn can_block(&self) -> bool;
}

impl HookPointExt for HookPoint {
    fn claude_name(&self) -> &'static str {
        match *self {
            Self::SessionStart => "SessionStart",
            Self::UserPromptSubmit => "UserPromptSubmit",
            Self::PreToolUse => "PreToolUse",
            Self::PostToolUse => "PostToolUse",
            Self::Stop => "Stop",
            Self::SubagentStop => "SubagentStop",
            Self::PreCompact => "PreCompact",
        }
    }

    fn is_tool_event(&self) -> bool {
        matches!(*self, Self::PreToolUse | Self::PostToolUse)
    }

    fn can_block(&self) -> bool {
        !matches!(*self, Self::SessionStart | Self::PreCompact)
    }
}

/// The point a configuration key names, by either name; an event Paddock does not have is
/// refused by name with the reason, any other name as unknown.
pub fn parse_event(name: &str) -> Result<HookPoint, HookConfigError> {
    if let Some(event) = HookPoint::ALL
        .into_iter()
        .find(|e| e.name() == name || e.claude_name() == name)
    {
        return Ok(event);
    }
    if let Some((_, why)) = UNSUPPORTED.iter().find(|(n, _)| *n == name) {
        return Err(HookConfigError::UnsupportedEvent {
            event: name.to_owned(),
            why,
        });
    }
    Err(HookConfigError::UnknownEvent {
        event: name.to_owned(),
        known: HookPoint::ALL.map(HookPoint::name).join(", "),
    })
}

/// What a point's matcher is matched against.
pub(crate) fn matcher_kind(event: HookPoint) -> MatcherKind {
    match event {
        HookPoint::PreToolUse | HookPoint::PostToolUse => MatcherKind::Tool,
        HookPoint::SessionStart => MatcherKind::SessionSource,
        HookPoint::PreCompact => MatcherKind::CompactTrigger,
        HookPoint::UserPromptSubmit | HookPoint::Stop | HookPoint::SubagentStop => {
            MatcherKind::Nothing
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_names_parse_to_the_same_event() {
        for event in HookPoint::ALL {
            assert_eq!(parse_event(event.name()), Ok(event));
            assert_eq!(parse_event(event.claude_name()), Ok(event));
        }
        assert!(parse_event("pretooluse").is_err());
    }

    #[test]
    fn unsupported_events_are_refused_by_name() {
        let e = parse_event("Notification").unwrap_err().to_string();
        assert!(
            e.starts_with("hook event `Notification` is not supported by Paddock: "),
            "{e}"
        );
        let e = parse_event("OnSave").unwrap_err().to_string();
        assert!(e.contains("unknown hook event `OnSave`"), "{e}");
        assert!(e.contains("pre_tool_use"), "{e}");
    }
}
