//! What the built-in tools of one project share: the workspace, the values to hide and how
//! bash is confined. Each tool gets it when it is built.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use paddock_core::RuleBook;
use paddock_guard::PathGuard;
use paddock_protocol::{SandboxStatus, WorkspaceMode};
use paddock_sandbox::SandboxConfig;

/// The default has no workspace (file tools refuse) and the safest sandbox.
#[derive(Debug, Clone, Default)]
pub struct ToolEnv {
    /// Root of the agent's workspace; file tools stay inside it.
    pub workspace_root: PathBuf,
    /// The project folder the workspace must be a real folder inside of (`None`: a bare
    /// workspace, as in tests).
    pub project_root: Option<PathBuf>,
    /// Which folder the user picked as the workspace (shown in the sandbox status).
    pub workspace_mode: WorkspaceMode,
    /// Exact values to redact from tool output (API keys the host holds).
    pub secrets: Vec<String>,
    /// bash's OS sandbox: on/off, network grant, whether unconfined bash is acceptable,
    /// the session's private TMPDIR.
    pub sandbox: SandboxConfig,
    /// The project's argument rules: grep and glob leave out what they keep from them.
    pub rules: RuleBook,
    /// The project's network policy and its proxy: web_fetch's only way out, and bash's
    /// when `sandbox.network_rules` is set (an allow-list, without `bash_network`). `None`:
    /// no connection is made at all.
    pub network: Option<crate::NetworkFence>,
    /// The limits images are scaled to when the model is known to take them: `file_read`
    /// of an image file then shows the image. Unset: it answers as for any binary file.
    pub images: ImageSupport,
}

/// Whether the model reads images, and the limits they are scaled to: shared by an
/// environment's clones, so what a server says of its model after the tools were built
/// (an Ollama vision model) reaches `file_read`.
#[derive(Debug, Clone, Default)]
pub struct ImageSupport(Arc<Mutex<Option<paddock_images::Limits>>>);

impl ImageSupport {
    pub fn new(limits: Option<paddock_images::Limits>) -> Self {
        Self(Arc::new(Mutex::new(limits)))
    }

    pub fn get(&self) -> Option<paddock_images::Limits> {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn set(&self, limits: Option<paddock_images::Limits>) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = limits;
    }
}

impl ToolEnv {
    /// An environment whose workspace is `root`, with the default (safe) sandbox settings.
    pub fn at(root: impl Into<PathBuf>) -> Self {
        Self {
            workspace_root: root.into(),
            ..Self::default()
        }
    }

    /// What a walled command of this environment runs behind.
    pub fn wall(&self) -> paddock_wall::Wall<'_> {
        paddock_wall::Wall {
            workspace_root: &self.workspace_root,
            project_root: self.project_root.as_deref(),
            workspace_mode: self.workspace_mode,
            secrets: &self.secrets,
            sandbox: &self.sandbox,
            network: self.network.as_ref(),
        }
    }

    /// The path guard every file tool goes through.
    pub fn guard(&self) -> PathGuard {
        self.wall().guard()
    }

    /// What bash would run under with this environment, as the CLI and app show it.
    pub fn sandbox_status(&self) -> SandboxStatus {
        self.wall().status()
    }
}
