use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::ProviderKind;

/// An external ACP agent the user added (their `agents.json`), as the app lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ExternalAgentInfo {
    pub name: String,
    /// The program and its arguments, as one line to show.
    pub command: String,
    /// Hosts it may reach besides the project's network rules.
    pub hosts: Vec<String>,
    /// The stored key it is given, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub key: Option<ProviderKind>,
}
