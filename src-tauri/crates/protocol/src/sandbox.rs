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

/// What builds bash's wall on this host, strongest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "engine", rename_all = "snake_case")]
pub enum SandboxEngine {
    /// bubblewrap (from the OS) builds mount, PID, user and network namespaces; Paddock's
    /// helper adds Landlock and a seccomp filter inside.
    Bubblewrap { version: String },
    /// No bubblewrap: Paddock's helper builds user, mount, PID and network namespaces itself,
    /// with Landlock and seccomp.
    Namespaces,
    /// No namespaces here: only Landlock (and seccomp, and a reaper for the call's processes).
    Landlock { abi: u32 },
    /// Nothing can confine bash on this host.
    None { reason: String },
    /// The user turned the sandbox off.
    Disabled,
}

/// One protection of the wall.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ProtectionKind {
    /// Writes (and metadata changes) outside the workspace and its TMPDIR; `.git` and
    /// `.paddock` read-only.
    Writes,
    /// Reads of secrets: SSH and cloud credentials, keyrings, Paddock's own data.
    Secrets,
    /// Host sockets: D-Bus (the keychain), ssh-agent, X11, docker.
    Sockets,
    Network,
    /// Processes the command starts die with the call, however they detach.
    Lifetime,
    /// No keystrokes pushed into the user's terminal.
    Terminal,
}

impl ProtectionKind {
    /// The protection's name for people.
    pub fn label(self) -> &'static str {
        match self {
            Self::Writes => "writes",
            Self::Secrets => "secrets",
            Self::Sockets => "host sockets",
            Self::Network => "network",
            Self::Lifetime => "process lifetime",
            Self::Terminal => "terminal",
        }
    }
}

/// Whether a protection holds on this host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ProtectionState {
    Enforced,
    /// Part of it holds; `detail` says what does not.
    Partial,
    Absent,
    /// Deliberately open: the project grants it (network).
    Granted,
}

/// A protection, what it does here, and how to get it where it is missing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Protection {
    pub kind: ProtectionKind,
    pub state: ProtectionState,
    /// In plain words, e.g. "/run, /tmp and $XDG_RUNTIME_DIR hidden; abstract sockets cut off".
    pub detail: String,
    /// One line on how to get it, when it is not enforced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub fix: Option<String>,
}

/// One wall engine as tried on this host, strongest first: whether it works, and if not,
/// why and what would make it work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct EngineCheck {
    /// `bubblewrap`, `namespaces` (the helper's own) or `landlock`.
    pub engine: String,
    pub works: bool,
    /// Why it does not work here (empty when it does).
    #[serde(default)]
    pub why: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub fix: Option<String>,
}

/// What bash runs under on this machine with these settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SandboxStatus {
    pub workspace_mode: WorkspaceMode,
    /// The workspace root the file tools and bash use.
    pub workspace_root: String,
    pub engine: SandboxEngine,
    /// Each protection, in the order of [`ProtectionKind`].
    pub protections: Vec<Protection>,
    /// Folders bash may write (the workspace and its private TMPDIR); empty when writes are
    /// not confined.
    pub writable_roots: Vec<String>,
    /// What bash may read inside the folders the wall hides (the homes): the project,
    /// toolchains, the folders on `PATH`, the user's `readablePaths`; empty when the wall
    /// hides nothing.
    #[serde(default)]
    pub readable_roots: Vec<String>,
    /// Every engine as tried on this host, strongest first (the one in use among them).
    #[serde(default)]
    pub engines: Vec<EngineCheck>,
    /// Everything asked for is enforced.
    pub fully_confined: bool,
    /// bash will run: fully confined, or the settings accept running it without (full)
    /// confinement.
    pub bash_runs: bool,
    /// One line for people, e.g. "bubblewrap 0.8.0: every protection enforced".
    pub summary: String,
}

impl SandboxStatus {
    pub fn protection(&self, kind: ProtectionKind) -> Option<&Protection> {
        self.protections.iter().find(|p| p.kind == kind)
    }
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
    fn engines_serialize_with_a_tag() {
        let json = serde_json::to_value(SandboxEngine::Landlock { abi: 7 }).unwrap();
        assert_eq!(json, serde_json::json!({"engine": "landlock", "abi": 7}));
        let json = serde_json::to_value(ProtectionState::Partial).unwrap();
        assert_eq!(json, serde_json::json!("partial"));
    }
}
