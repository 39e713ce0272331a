//! What an event is about, as the host hands it over to find the hooks that match: a tool
//! call (its name and input, and the workspace its paths are in), how a session began, what
//! asked for a compaction, or nothing.

use std::path::Path;

use serde_json::Value;

/// One tool call, as the grants see it.
#[derive(Debug, Clone, Copy)]
pub struct CallInfo<'a> {
    /// Paddock's name of the tool (`bash`, `file_write`, `mcp__github__create_issue`).
    pub tool: &'a str,
    /// The call's input, as the model sent it (or as a hook rewrote it).
    pub input: &'a Value,
    /// The workspace root: file-tool paths in `input` are read relative to it, as
    /// `paddock_rules::Rules::decide` reads them for the grants.
    pub workspace: &'a Path,
}

/// How a session began (what a `session_start` matcher is matched against).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionSource {
    /// A new session.
    Startup,
    /// A session resumed from disk.
    Resume,
}

impl SessionSource {
    /// The word a matcher names it by, as Claude Code's `source` does.
    pub fn word(self) -> &'static str {
        match self {
            Self::Startup => "startup",
            Self::Resume => "resume",
        }
    }
}

/// What asked for a compaction (what a `pre_compact` matcher is matched against).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactTrigger {
    /// The person asked for it.
    Manual,
    /// The context filled past its threshold, or the provider said it overflowed.
    Auto,
}

impl CompactTrigger {
    /// The word a matcher names it by, as Claude Code's `trigger` does.
    pub fn word(self) -> &'static str {
        match self {
            Self::Manual => "manual",
            Self::Auto => "auto",
        }
    }
}

/// What an event is about. Each event has one kind: `pre_tool_use` and `post_tool_use` a
/// call, `session_start` a session, `pre_compact` a compaction, the others nothing (a
/// subject of another kind matches no hook).
#[derive(Debug, Clone, Copy)]
pub enum Subject<'a> {
    Call(CallInfo<'a>),
    Session(SessionSource),
    Compaction(CompactTrigger),
    /// `user_prompt_submit`, `stop`, `subagent_stop`.
    Nothing,
}
