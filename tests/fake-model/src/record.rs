//! What the server remembers about each model request it got.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One request to a model endpoint (`/messages`, `/chat/completions`, `/models`) or a
/// side endpoint (`/props`, `/api/show`, `/api/v0/models`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedRequest {
    pub method: String,
    /// Path and query, as sent.
    pub path: String,
    /// Header names in lower case.
    pub headers: BTreeMap<String, String>,
    /// The JSON body (`null` when there was none or it was not JSON).
    pub body: Value,
    /// Milliseconds since the server started, when the request arrived.
    pub received_ms: u64,
    /// The HTTP status answered.
    pub status: u16,
    pub outcome: Outcome,
    /// Chat requests: the size estimate the context window mode judges
    /// ([`crate::estimate_tokens`] of the body's characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_tokens: Option<u32>,
}

impl RecordedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }
}

/// How the answer to a request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Still streaming (or hanging on purpose).
    Open,
    /// Sent in full.
    Completed,
    /// The client went away before the stream ended (cancellation, timeouts).
    ClientClosed,
    /// The server cut the connection on purpose (a `drop` fault).
    ServerDropped,
}
