use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::ProviderKind;

/// One external ACP agent as the user's `agents.json` holds it, and as the app's "Add agent"
/// form and its known entries fill it in.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExternalAgentConfig {
    /// The program (a path, or a name on PATH) that speaks ACP on stdin/stdout.
    pub command: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<Vec<String>>")]
    pub args: Vec<String>,
    /// Variables it gets on top of the wall's scrubbed environment (its API base URL...).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[ts(optional, as = "Option<BTreeMap<String, String>>")]
    pub env: BTreeMap<String, String>,
    /// Hosts it may reach besides the project's network allow list (its vendor's API):
    /// rules as in `network.allow` (`api.anthropic.com`, `127.0.0.1:8080`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<Vec<String>>")]
    pub hosts: Vec<String>,
    /// The API key it gets from the keychain (or the environment), and the variable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub key: Option<AgentKey>,
    /// The ACP mode each session is put in (Claude Code's `default` asks before every edit,
    /// so Paddock's approval cards decide); unset keeps the agent's own default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub mode: Option<String>,
    /// Its tools whose permission requests Paddock answers yes without asking ("Always
    /// allow" on its approval cards): names as it gives them (`Write`), `*` at the end for a
    /// prefix (`mcp__*`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<Vec<String>>")]
    pub allow: Vec<String>,
}

impl ExternalAgentConfig {
    /// The `allow` entry that covers a call of `tool`, if one does.
    pub fn allowed(&self, tool: &str) -> Option<&str> {
        self.allow
            .iter()
            .find(|rule| match rule.strip_suffix('*') {
                Some(prefix) => tool.starts_with(prefix),
                None => rule.as_str() == tool,
            })
            .map(String::as_str)
    }

    /// The program and its arguments as one line to show.
    pub fn command_line(&self) -> String {
        std::iter::once(self.command.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Which stored key an agent is given, as which variable: a provider's key (the one
/// Paddock's own models use), or a value kept in the keychain under its own name (a Gemini
/// key).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AgentKey {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub provider: Option<ProviderKind>,
    /// A keychain value's name (as MCP servers' `${NAME}` values are kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub value: Option<String>,
    /// e.g. `ANTHROPIC_API_KEY`.
    pub env: String,
}

impl AgentKey {
    /// What the key is, in words (`your anthropic key`, `the keychain value GEMINI_API_KEY`).
    pub fn describe(&self) -> String {
        match (&self.provider, &self.value) {
            (Some(p), _) => format!("your {} key", p.as_str()),
            (None, Some(v)) => format!("the keychain value {v}"),
            (None, None) => "no key".to_owned(),
        }
    }
}

/// An agent Paddock knows how to run: the entry the "Add agent" form starts from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct KnownAgent {
    /// The name it is added under (`claude`).
    pub id: String,
    pub title: String,
    /// How to install it, when its program is not found.
    pub install: String,
    pub config: ExternalAgentConfig,
    /// Its program is on PATH here.
    pub installed: bool,
}

/// An external ACP agent the user added (their `agents.json`), as the app lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ExternalAgentInfo {
    pub name: String,
    /// The program and its arguments, as one line to show.
    pub command: String,
    /// Hosts it may reach besides the project's network rules.
    pub hosts: Vec<String>,
    /// The stored key it is given, in words, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub key: Option<String>,
    /// The whole entry, for editing.
    pub config: ExternalAgentConfig,
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
