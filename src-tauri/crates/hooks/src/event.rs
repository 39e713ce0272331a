//! The moments a hook can run, by Paddock's names with Claude Code's (and Codex's, which are
//! the same) as aliases; and the events those tools have that Paddock does not, refused by
//! name with the reason.
//!
//! Sources, read 2026-12-06: Claude Code's hooks reference
//! (<https://docs.anthropic.com/de/docs/claude-code/hooks>, the official translation of
//! <https://code.claude.com/docs/en/hooks>) and Codex's event list
//! (<https://developers.openai.com/codex/hooks>; the names in `HookEventsToml`,
//! `codex-rs/config/src/hook_config.rs` of github.com/openai/codex).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::HookConfigError;

/// A moment in a run at which hooks may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HookEvent {
    /// A session starts or is resumed (Claude Code and Codex: `SessionStart`).
    SessionStart,
    /// A person's prompt, before the model sees it (`UserPromptSubmit`).
    UserPromptSubmit,
    /// A tool call, after the model asked for it and before it runs (`PreToolUse`).
    PreToolUse,
    /// A tool call, after it ran (`PostToolUse`).
    PostToolUse,
    /// The agent is about to end its turn with a final answer (`Stop`).
    Stop,
    /// A teammate (`delegate_to_agent`) is about to hand its answer back (`SubagentStop`).
    SubagentStop,
    /// The conversation is about to be compacted (`PreCompact`).
    PreCompact,
}

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

impl HookEvent {
    /// Every event, in the order of a run.
    pub const ALL: [HookEvent; 7] = [
        HookEvent::SessionStart,
        HookEvent::UserPromptSubmit,
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::Stop,
        HookEvent::SubagentStop,
        HookEvent::PreCompact,
    ];

    /// Paddock's name: `pre_tool_use`.
    pub fn name(self) -> &'static str {
        match self {
            Self::SessionStart => "session_start",
            Self::UserPromptSubmit => "user_prompt_submit",
            Self::PreToolUse => "pre_tool_use",
            Self::PostToolUse => "post_tool_use",
            Self::Stop => "stop",
            Self::SubagentStop => "subagent_stop",
            Self::PreCompact => "pre_compact",
        }
    }

    /// Claude Code's (and Codex's) name: `PreToolUse`. Also the `hookEventName` a hook's
    /// JSON output names.
    pub fn claude_name(self) -> &'static str {
        match self {
            Self::SessionStart => "SessionStart",
            Self::UserPromptSubmit => "UserPromptSubmit",
            Self::PreToolUse => "PreToolUse",
            Self::PostToolUse => "PostToolUse",
            Self::Stop => "Stop",
            Self::SubagentStop => "SubagentStop",
            Self::PreCompact => "PreCompact",
        }
    }

    /// The event a configuration key names, by either name; an event Paddock does not have is
    /// refused by name with the reason, any other name as unknown.
    pub fn parse(name: &str) -> Result<HookEvent, HookConfigError> {
        if let Some(event) = Self::ALL
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
            known: Self::ALL.map(Self::name).join(", "),
        })
    }

    /// Whether the event is about one tool call (`pre_tool_use`, `post_tool_use`).
    pub fn is_tool_event(self) -> bool {
        matches!(self, Self::PreToolUse | Self::PostToolUse)
    }

    /// Whether a hook of this event can hold anything back (a call, a prompt, a stop). A
    /// session start or a compaction cannot be: their hooks only add context or warn.
    pub fn can_block(self) -> bool {
        !matches!(self, Self::SessionStart | Self::PreCompact)
    }

    pub(crate) fn matcher_kind(self) -> MatcherKind {
        match self {
            Self::PreToolUse | Self::PostToolUse => MatcherKind::Tool,
            Self::SessionStart => MatcherKind::SessionSource,
            Self::PreCompact => MatcherKind::CompactTrigger,
            Self::UserPromptSubmit | Self::Stop | Self::SubagentStop => MatcherKind::Nothing,
        }
    }
}

impl fmt::Display for HookEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for HookEvent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for HookEvent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        Self::parse(&name).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_names_parse_to_the_same_event() {
        for event in HookEvent::ALL {
            assert_eq!(HookEvent::parse(event.name()), Ok(event));
            assert_eq!(HookEvent::parse(event.claude_name()), Ok(event));
        }
        assert!(HookEvent::parse("pretooluse").is_err());
    }

    #[test]
    fn unsupported_events_are_refused_by_name() {
        let e = HookEvent::parse("Notification").unwrap_err().to_string();
        assert!(
            e.starts_with("hook event `Notification` is not supported by Paddock: "),
            "{e}"
        );
        let e = HookEvent::parse("OnSave").unwrap_err().to_string();
        assert!(e.contains("unknown hook event `OnSave`"), "{e}");
        assert!(e.contains("pre_tool_use"), "{e}");
    }
}
