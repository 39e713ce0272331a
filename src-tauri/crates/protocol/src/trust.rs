//! Folder trust as the UI and the CLI show it: what a folder's settings would do that Paddock
//! does only once the user has seen it and said yes.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Whether one such thing is trusted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum TrustState {
    Trusted,
    /// Never trusted in this folder.
    New,
    /// Trusted once with another value; `was` says which.
    Changed {
        was: String,
    },
}

/// One thing a folder's settings would do: start a program, send the key somewhere, grant a
/// tool, open the network.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TrustItem {
    /// The settings field, e.g. `baseUrl`, `tools.bash`, `mcpServers.github`.
    pub key: String,
    /// What it would do, in plain words (secrets never shown, only their names).
    pub what: String,
    pub state: TrustState,
}

/// A folder's trust: what is pending (new or changed) and what is already trusted.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
pub struct TrustReport {
    /// The folder's real path, as trust is keyed.
    pub folder: String,
    /// Not applied until trusted.
    pub pending: Vec<TrustItem>,
    pub trusted: Vec<TrustItem>,
    /// The user opened the folder without the pending items, and they have not changed since.
    pub declined: bool,
    /// Why the trust record could not be read (a damaged file): nothing counts as trusted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub error: Option<String>,
}

impl TrustReport {
    pub fn needs_trust(&self) -> bool {
        !self.pending.is_empty()
    }
}
