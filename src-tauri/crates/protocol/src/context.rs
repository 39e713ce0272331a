//! How full the model's context window is, and compactions of the conversation.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The size of the next model request, estimated (about 4 characters a token), by part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
pub struct ContextInfo {
    /// The whole request.
    pub used: u32,
    /// The model's window, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub window: Option<u32>,
    /// The system prompt with the project's instructions.
    pub instructions: u32,
    /// The tools' descriptions and schemas.
    pub tools: u32,
    /// The conversation.
    pub history: u32,
}

/// Why the conversation was compacted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum CompactionReason {
    /// The request was about to pass the threshold (a share of the window).
    Threshold,
    /// The provider said the conversation no longer fits.
    Overflow,
    /// The user asked.
    Asked,
}

/// A compaction: the start of the history was replaced by a summary (the user's own
/// messages kept verbatim in it); recent turns stay as they were. Undoable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CompactionInfo {
    pub id: String,
    pub reason: CompactionReason,
    /// Messages at the start of the history that the summary replaced.
    pub replaced: u32,
    /// Model turns kept as they were after the summary (the transcript shows the turns
    /// before them as summarized).
    #[serde(default)]
    pub kept_turns: u32,
    /// Estimated tokens of the conversation before and after.
    pub before_tokens: u32,
    pub after_tokens: u32,
    /// What the model wrote (the user may edit it before the next prompt).
    pub summary: String,
}

/// A file of instructions the agent is given (AGENTS.md, or CLAUDE.md where there is none).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct InstructionFile {
    /// Relative to the project folder.
    pub path: String,
    /// Its size on disk.
    #[ts(type = "number")]
    pub bytes: u64,
    /// Estimated tokens of what the agent is given.
    pub tokens: u32,
    /// Only its beginning is given (it is over the size limit).
    pub truncated: bool,
}

/// The project's instruction files and what the agent is given from them.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
pub struct ProjectInstructions {
    pub files: Vec<InstructionFile>,
    /// The text added to the system prompt.
    pub text: String,
    /// What the user should know (a file cut or left out, and why).
    pub notices: Vec<String>,
}
