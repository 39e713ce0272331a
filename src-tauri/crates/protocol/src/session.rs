//! Sessions on disk: one JSONL file per conversation, a header line then one record per
//! message or event.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::{AgentEvent, Message};

/// The session file format this Paddock writes.
pub const SESSION_FORMAT: u32 = 1;

/// First line of a session file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SessionHeader {
    pub format: u32,
    pub id: String,
    /// Absolute path of the project folder.
    pub project: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub provider: Option<String>,
    pub model: String,
    /// RFC 3339, UTC.
    pub created: String,
    /// The first prompt's first line, shortened.
    pub title: String,
}

/// One line of a session file.
// One record is read or written at a time, never kept in bulk: boxing the event would only
// add an allocation per line.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SessionRecord {
    Header(SessionHeader),
    Message { message: Message },
    Event { event: AgentEvent },
}

/// A session in a list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct SessionSummary {
    pub id: String,
    pub title: String,
    pub model: String,
    pub created: String,
    /// Last write, RFC 3339: UTC as stored, the local offset from the desktop's
    /// `list_sessions`.
    pub updated: String,
    #[ts(type = "number")]
    pub size_bytes: u64,
    /// What its runs cost (absent when it has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cost: Option<crate::Cost>,
}

/// A search match inside a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SearchHit {
    pub session_id: String,
    pub title: String,
    /// Index of the message in the session's history.
    pub message_index: u32,
    /// The text around the match.
    pub snippet: String,
}
