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

/// What the wall around one external agent enforces in a project (the Sandbox screen).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ExternalAgentWall {
    pub name: String,
    pub command: String,
    /// Where it may write: the agent's workspace and its own home folder.
    pub writable: Vec<String>,
    /// Its network, in words (none, the proxy with which hosts, or all of it).
    pub network: String,
    /// The key it is given, in words (`anthropic key as ANTHROPIC_API_KEY`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub key: Option<String>,
    /// It can start here: a wall can be built (or the user allowed running unconfined).
    pub runs: bool,
}
