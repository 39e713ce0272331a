//! What confines the agent's tools: the workspace mode the user picked and the OS sandbox
//! bash actually runs under, as the CLI (`paddock doctor`) and the app's sandbox screen show it.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Folder inside the project that is the agent's workspace by default.
pub const AGENT_WORKSPACE_DIR: &str = ".agent-workspace";

/// Which folder the file tools and bash may write.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS,
)]
#[serde(rename_all = "snake_case")]
pub enum WorkspaceMode {
    /// `<project>/.agent-workspace` (the default).
    #[default]
    AgentWorkspace,
    /// The whole project folder.
    Project,
}

impl WorkspaceMode {
    /// The workspace root for a project folder.
    pub fn root(self, project: &Path) -> PathBuf {
        match self {
            Self::AgentWorkspace => project.join(AGENT_WORKSPACE_DIR),
            Self::Project => project.to_path_buf(),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::AgentWorkspace => "agent_workspace",
            Self::Project => "project",
        }
    }
}

/// How bash's file-system access is confined.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum FsConfinement {
    /// Landlock is enforced: writes only inside `writable_roots`, reads everywhere.
    Landlock {
        /// The Landlock ABI the running kernel offers (1 = Linux 5.13, 7 = Linux 6.15).
        abi: u32,
    },
    /// No file-system confinement is possible here.
    Unavailable { reason: String },
    /// The user turned the sandbox off.
    Disabled,
}

/// How bash's network access is confined.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum NetworkConfinement {
    /// A fresh user + network namespace: no interface but a private loopback.
    Namespace,
    /// Landlock denies TCP connect and bind (other protocols are not covered).
    LandlockTcp,
    /// The project grants bash network access.
    Granted,
    /// Isolation was wanted but nothing on this machine can provide it.
    Unavailable { reason: String },
    /// The user turned the sandbox off.
    Disabled,
}

impl NetworkConfinement {
    /// True when bash cannot reach the network.
    pub fn is_isolated(&self) -> bool {
        matches!(self, Self::Namespace | Self::LandlockTcp)
    }
}

/// What bash runs under on this machine with these settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SandboxStatus {
    pub workspace_mode: WorkspaceMode,
    /// The workspace root the file tools and bash use.
    pub workspace_root: String,
    pub filesystem: FsConfinement,
    pub network: NetworkConfinement,
    /// Folders bash may write (the workspace and its private TMPDIR); empty when writes are
    /// not confined.
    pub writable_roots: Vec<String>,
    /// Everything asked for is enforced.
    pub fully_confined: bool,
    /// bash will run: fully confined, or the settings accept running it without (full)
    /// confinement.
    pub bash_runs: bool,
    /// One line for people, e.g. "Landlock ABI 7; network isolated (namespace)".
    pub summary: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workspace_mode_picks_the_root() {
        let project = Path::new("/p");
        assert_eq!(
            WorkspaceMode::AgentWorkspace.root(project),
            PathBuf::from("/p/.agent-workspace")
        );
        assert_eq!(WorkspaceMode::Project.root(project), PathBuf::from("/p"));
        assert_eq!(WorkspaceMode::default(), WorkspaceMode::AgentWorkspace);
    }

    #[test]
    fn confinement_serializes_with_a_state_tag() {
        let json = serde_json::to_value(FsConfinement::Landlock { abi: 7 }).unwrap();
        assert_eq!(json, serde_json::json!({"state": "landlock", "abi": 7}));
        let json = serde_json::to_value(NetworkConfinement::Namespace).unwrap();
        assert_eq!(json, serde_json::json!({"state": "namespace"}));
        assert!(NetworkConfinement::LandlockTcp.is_isolated());
        assert!(!NetworkConfinement::Granted.is_isolated());
    }
}
