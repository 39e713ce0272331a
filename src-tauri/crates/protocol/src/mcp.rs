//! What the CLI (`paddock doctor`) and the app's grants screen show about MCP servers.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// One configured MCP server and how it is doing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct McpServerStatus {
    /// The server's key in the settings' `mcpServers`.
    pub name: String,
    pub state: McpServerState,
    /// Things the user should know that did not stop the server, e.g. a tool left out
    /// because its name collides with another.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The end of what a stdio server wrote to stderr, for diagnostics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub stderr_tail: Option<String>,
}

/// The life of an MCP server connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum McpServerState {
    /// Set `disabled` in the settings: kept, not started.
    Disabled,
    /// Launching and handshaking.
    Starting,
    /// Connected; `tools` are the names the model sees (`mcp__<server>__<tool>`).
    Running { tools: Vec<String> },
    /// Never came up: bad settings, a command that does not start, a failed handshake or
    /// a start timeout.
    Failed { error: String },
    /// Was running, then went away (crashed, killed, closed the connection, shut down).
    Exited { reason: String },
}

impl McpServerState {
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Disabled => "disabled",
            Self::Starting => "starting",
            Self::Running { .. } => "running",
            Self::Failed { .. } => "failed",
            Self::Exited { .. } => "exited",
        }
    }

    pub fn is_running(&self) -> bool {
        matches!(self, Self::Running { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn statuses_serialize_with_a_state_tag() {
        let s = McpServerStatus {
            name: "everything".into(),
            state: McpServerState::Running {
                tools: vec!["mcp__everything__echo".into()],
            },
            warnings: vec![],
            stderr_tail: None,
        };
        assert_eq!(
            serde_json::to_value(&s).unwrap(),
            json!({"name": "everything", "state": {"state": "running", "tools": ["mcp__everything__echo"]}})
        );
        let failed = McpServerState::Failed {
            error: "no such command".into(),
        };
        assert_eq!(
            serde_json::to_value(&failed).unwrap(),
            json!({"state": "failed", "error": "no such command"})
        );
    }
}
