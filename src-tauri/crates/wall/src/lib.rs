//! The wall runtime: what runs a command (bash, a hook, Paddock's own git) or a long-lived
//! program (an external agent) behind the OS wall `paddock-sandbox` builds, with the network
//! gate of `paddock-net`, a private TMPDIR, a process group killed at its time limit,
//! bounded redacted output, and the files it wrote that would run things outside the wall
//! held. Tools, hooks and external agents all run through here.

mod capture;
pub mod command;
mod git_gate;
pub mod held;
pub mod network;
pub mod own;
mod process;
pub mod program;

use std::path::{Path, PathBuf};

pub use git_gate::front_covers_git_paths;
pub use network::NetworkFence;

use paddock_guard::PathGuard;
use paddock_protocol::{SandboxStatus, WorkspaceMode};
use paddock_sandbox::SandboxConfig;

/// What a walled command needs to know of the project it runs for: where, behind which
/// sandbox settings and network fence, and which values to hide in its output.
#[derive(Debug, Clone, Copy)]
pub struct Wall<'a> {
    /// Root of the agent's workspace: where commands start and what they may write.
    pub workspace_root: &'a Path,
    /// The project folder the workspace must be a real folder inside of (`None`: a bare
    /// workspace, as in tests).
    pub project_root: Option<&'a Path>,
    /// Which folder the user picked as the workspace (shown in the sandbox status).
    pub workspace_mode: WorkspaceMode,
    /// Exact values to redact from output (API keys the host holds).
    pub secrets: &'a [String],
    /// The OS sandbox: on/off, network grant, whether unconfined is acceptable, the
    /// session's private TMPDIR.
    pub sandbox: &'a SandboxConfig,
    /// The project's network policy and its proxy (`None`: no connection is made at all).
    pub network: Option<&'a NetworkFence>,
}

impl Wall<'_> {
    /// The path guard for files in the workspace.
    pub fn guard(&self) -> PathGuard {
        let guard = PathGuard::new(self.workspace_root.to_path_buf()).protecting(
            paddock_sandbox::private_folders(self.sandbox),
            paddock_sandbox::own_dirs(self.sandbox),
        );
        match self.project_root {
            Some(project) => guard.inside(project.to_path_buf()),
            None => guard,
        }
    }

    /// What a command would run under, as the CLI and app show it.
    pub fn status(&self) -> SandboxStatus {
        let tmp = self
            .sandbox
            .tmp_dir
            .clone()
            .unwrap_or_else(|| std::env::temp_dir().join("paddock-bash-*"));
        let root: PathBuf = self.workspace_root.to_path_buf();
        paddock_sandbox::describe(
            self.sandbox,
            self.workspace_mode,
            &root,
            &[root.clone(), tmp],
        )
    }
}

/// Runs blocking file-system work off the async threads; a panic becomes a failure.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, paddock_core::ToolError> + Send + 'static,
) -> Result<T, paddock_core::ToolError> {
    paddock_core::blocking(work, |e| {
        paddock_core::ToolError::Failed(format!("the wall's work stopped unexpectedly: {e}"))
    })
    .await
}
