use std::sync::Arc;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::{
    ApprovalDecision, CallPreview, ChangeSummary, CheckpointInfo, CompactionInfo, ContextInfo,
    Cost, FileChange, HookRun, NetworkConnection, Plan, Pricing, RewindInfo, SharedText,
    StopReason, TokenUsage, ToolCall,
};

/// Why a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ExitReason {
    /// The model answered without asking for tools.
    EndTurn,
    /// The run used all its model calls.
    MaxTurns,
    /// The user (or a caller) cancelled.
    Aborted,
    /// Used tokens went over the budget.
    BudgetExceeded,
    /// The model repeated itself.
    LoopDetected,
    /// The model could not be reached or answered nonsense.
    Error,
}

impl ExitReason {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::EndTurn => "end_turn",
            Self::MaxTurns => "max_turns",
            Self::Aborted => "aborted",
            Self::BudgetExceeded => "budget_exceeded",
            Self::LoopDetected => "loop_detected",
            Self::Error => "error",
        }
    }
}

/// What kind of repetition was seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum LoopKind {
    ToolRepetition,
    TextRepetition,
}

/// What the kernel did about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum LoopAction {
    /// A "you seem stuck" message was added; the next detection stops the run.
    Warned,
    Terminated,
}

/// Classes of errors a user can act on differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// Missing or rejected API key.
    Auth,
    RateLimited,
    /// The conversation no longer fits the model's context window.
    ContextTooLong,
    /// The vendor's server failed.
    Server,
    /// Could not connect, or the connection dropped.
    Network,
    /// The server answered something that is not the documented format.
    InvalidResponse,
    /// The request itself was rejected (bad model name, bad parameter).
    InvalidRequest,
    Cancelled,
    Other,
}

/// How a tool call ended, as the executor decided it. The CLI's exit code and the app's
/// card states read this; nothing re-derives it from the grants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ToolStatus {
    #[default]
    Ok,
    /// The tool ran and reported a failure (a non-zero exit, a missing file).
    Failed,
    /// The input did not match the tool's schema.
    InvalidInput,
    /// No tool by this name exists.
    UnknownTool,
    /// The call was not run.
    Denied {
        reason: DenyReason,
    },
    /// The run was cancelled before or while the tool ran.
    Aborted,
    TimedOut,
    /// The tool crashed (a bug in the tool, not in the input).
    Panicked,
}

impl ToolStatus {
    pub fn is_ok(self) -> bool {
        self == Self::Ok
    }

    pub fn is_denied(self) -> bool {
        matches!(self, Self::Denied { .. })
    }
}

impl AgentEvent {
    /// A warning that is not a retry.
    pub fn warning(message: impl Into<String>) -> Self {
        Self::Warning {
            message: message.into(),
            retry: None,
        }
    }
}

/// Why a call was not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum DenyReason {
    /// Not granted to this agent (preset, lists, a Paddock rule).
    NotGranted,
    /// It needs approval and nobody can approve in this run (headless).
    NoApprover,
    /// The user said no.
    User,
    /// An argument rule denies this call (the result says which).
    Rule,
    /// A hook refused it (the result says why).
    Hook,
}

/// A model call that failed and is tried again after a wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Retry {
    /// The attempt about to be made (2 is the first retry).
    pub attempt: u32,
    /// How many attempts the call may take in all.
    pub attempts: u32,
}

/// Everything a run tells its observers, in order. UIs and the CLI consume only this.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent {
    RunStarted {
        agent: String,
        model: String,
        /// Model calls the run may make (0 in sessions written before it was said).
        #[serde(default)]
        max_turns: u32,
        /// How the model's tokens are priced (absent in sessions written before costs).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        pricing: Option<Pricing>,
    },
    /// A model call begins (turn numbers start at 1).
    TurnStarted {
        turn: u32,
    },
    TextDelta {
        text: String,
    },
    ThinkingDelta {
        text: String,
    },
    ToolCallStarted {
        // The history's call itself, shared.
        call: Arc<ToolCall>,
        /// One line saying what the call does (a path, a command), from the tool itself.
        #[serde(default)]
        summary: String,
    },
    ToolCallFinished {
        id: String,
        name: String,
        #[serde(default)]
        summary: String,
        // The history's result text itself, shared.
        #[ts(type = "string")]
        output: SharedText,
        is_error: bool,
        /// Sessions written before statuses existed read as `ok`; the session loader fixes
        /// failed ones from `is_error`.
        #[serde(default)]
        status: ToolStatus,
        #[ts(type = "number")]
        duration_ms: u64,
        /// What decided whether the call could run: the rule that matched, or the tool's
        /// grant.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        #[ts(optional, as = "Option<String>")]
        why: String,
        /// What the call changed in the workspace's files (file_write, file_edit).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[ts(as = "Option<Vec<FileChange>>", optional)]
        changes: Vec<FileChange>,
    },
    ApprovalRequested {
        request_id: String,
        call: ToolCall,
        #[serde(default)]
        summary: String,
        /// Why it asks: the rule that matched, or the tool's grant.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        #[ts(optional, as = "Option<String>")]
        why: String,
        /// The narrowest rules that would allow calls like this one ("Always allow"); none
        /// when no rule could (the call has a construct that always asks).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        proposed_rules: Option<Vec<String>>,
        /// Where "Always allow" saves those rules when not in the project's settings: an
        /// external agent's tools are its own, and its rules go in its entry of the user's
        /// `agents.json` (the agent's name).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        rules_for_agent: Option<String>,
        /// What the call would do (a diff, a command and where it runs), when the tool can
        /// tell without running.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        preview: Option<CallPreview>,
    },
    ApprovalResolved {
        request_id: String,
        decision: ApprovalDecision,
    },
    /// Usage of the last model call and the run total so far (delegated usage included).
    Usage {
        turn: TokenUsage,
        total: TokenUsage,
        /// What `turn` and `total` cost (absent in sessions written before costs).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        turn_cost: Option<Cost>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        total_cost: Option<Cost>,
    },
    Warning {
        message: String,
        /// Set when the warning says a model call is being retried: a UI shows one call's
        /// retries as one line.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        retry: Option<Retry>,
    },
    LoopDetected {
        kind: LoopKind,
        repetitions: u32,
        action: LoopAction,
        detail: String,
    },
    TurnFinished {
        turn: u32,
        stop_reason: StopReason,
    },
    Error {
        kind: ErrorKind,
        message: String,
    },
    RunFinished {
        exit: ExitReason,
        turns: u32,
        usage: TokenUsage,
        /// What the run cost, teammates included (absent in sessions written before costs).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        cost: Option<Cost>,
    },
    /// The workspace was recorded before a turn's tools ran (turn 0: before the prompt): the
    /// run can be rewound to here.
    CheckpointSaved(CheckpointInfo),
    /// Every file the run changed, by any tool (bash included), from the run's first
    /// checkpoint to its end.
    RunChanges {
        /// Checkpoint ids of the workspace before and after the run.
        from: String,
        to: String,
        files: Vec<ChangeSummary>,
    },
    /// The session was rewound (or a rewind undone). Not part of a run.
    Rewound(RewindInfo),
    /// How full the context is, just before a model call.
    Context(ContextInfo),
    /// The start of the conversation was replaced by a summary (in a run, or asked for
    /// between runs).
    Compacted(CompactionInfo),
    /// A compaction was undone: the full conversation is back.
    CompactionUndone {
        id: String,
    },
    /// The user edited a compaction's summary before the next prompt.
    CompactionEdited {
        id: String,
        summary: String,
    },
    /// A connection a call made through the network fence ended (or was refused).
    Connection(NetworkConnection),
    /// The agent's checklist as `todo_write` last set it (the whole list).
    Plan(Plan),
    /// A hook ran (see [`HookRun`]).
    Hook(HookRun),
    /// An event of a teammate's run, started by the delegation call `call_id`.
    Delegated {
        agent: String,
        depth: u32,
        call_id: String,
        event: Box<AgentEvent>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_serialize_with_a_type_tag() {
        let e = AgentEvent::Delegated {
            agent: "helper".into(),
            depth: 1,
            call_id: "c1".into(),
            event: Box::new(AgentEvent::TextDelta { text: "x".into() }),
        };
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(v["type"], json!("delegated"));
        assert_eq!(v["event"], json!({"type": "text_delta", "text": "x"}));
        let back: AgentEvent = serde_json::from_value(v).unwrap();
        assert_eq!(back, e);
    }
}
