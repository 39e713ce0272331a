//! What the transcript shows of a hook: the user's own command run on one of the agent's
//! events, and what it decided.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A point of a run where hooks act (Claude Code's and Codex's event names are read as
/// aliases of these by the hook settings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum HookPoint {
    /// A session starts or is resumed: a hook may add context.
    SessionStart,
    /// A prompt is about to go: a hook may add context or block it.
    UserPromptSubmit,
    /// A tool call is about to run: a hook may allow, ask, deny or rewrite its input.
    PreToolUse,
    /// A tool call ran: a hook may add context the model sees.
    PostToolUse,
    /// The agent is about to finish: a hook may ask it to go on (a bounded number of times).
    Stop,
    /// A teammate is about to hand its answer back: a hook may ask it to go on.
    SubagentStop,
    /// The conversation is about to be compacted.
    PreCompact,
}

impl HookPoint {
    /// Every point, in the order of a run.
    pub const ALL: [HookPoint; 7] = [
        HookPoint::SessionStart,
        HookPoint::UserPromptSubmit,
        HookPoint::PreToolUse,
        HookPoint::PostToolUse,
        HookPoint::Stop,
        HookPoint::SubagentStop,
        HookPoint::PreCompact,
    ];

    /// Paddock's name, as serialized: `pre_tool_use`.
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
}

impl std::fmt::Display for HookPoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What one hook run came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum HookOutcome {
    /// Nothing to say: things go on as they were.
    Continue,
    /// The call runs without asking (an Ask the grants would have made is skipped; a hook
    /// never lifts a deny or a ceiling).
    Allow,
    /// The call is asked about, even if the grants allowed it.
    Ask,
    /// The call, or the prompt, does not go; `message` says why.
    Deny,
    /// The call runs with the input the hook gave (judged again by the grants).
    Rewrote,
    /// The hook added context for the model (`message`).
    Context,
    /// The agent is asked to go on (`message` is what it is told).
    GoOn,
    /// The hook failed or timed out; `message` says how. A fail-closed hook then denies.
    Failed,
}

/// One hook's run, shown under the call or prompt it touched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct HookRun {
    pub point: HookPoint,
    /// Which hook: where it comes from and its command, shortened.
    pub hook: String,
    /// The tool call it ran for (pre/post tool use).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub call_id: Option<String>,
    pub outcome: HookOutcome,
    #[ts(type = "number")]
    pub duration_ms: u64,
    /// Its reason, the context it added, or why it failed (bounded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub message: Option<String>,
}

/// One hook as the grants screen and `paddock hooks list` show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct HookInfo {
    /// `yours` (the config folder's `hooks.json`) or `project` (its settings).
    pub source: String,
    pub point: HookPoint,
    /// `pre_tool_use · bash(git push *) · ./check.sh`.
    pub title: String,
    /// The group's tool matcher as written (`Bash`, `Edit|Write`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub matcher: Option<String>,
    /// Paddock's rule narrowing it (`bash(git push *)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub rule: Option<String>,
    /// The command, with its arguments.
    pub command: String,
    pub timeout_secs: u32,
    /// A failure refuses what the hook guards (else it is a warning).
    pub fail_closed: bool,
    /// A project hook waiting for trust: it does not run until it is trusted.
    pub waiting: bool,
    /// What trust pins it to.
    pub digest: String,
}
