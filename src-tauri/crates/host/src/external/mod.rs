//! Other agents fenced by Paddock: an external ACP agent (Claude Code's adapter, Gemini CLI,
//! Codex's adapter...) runs as one program behind the same wall as bash — the workspace and
//! its own home folder its only writable places, the home's secrets hidden, the project's
//! network policy plus the hosts the user allowed it — and Paddock is its ACP client. It is
//! offered no file-system or terminal methods, so all it does goes through the wall. Its
//! prompts are Paddock sessions: recorded, with the workspace checkpointed before and the
//! run's changes listed after (rewind works on its files), its permission requests become
//! Paddock approvals.

pub mod config;
mod session;

pub use session::PreparedExternal;

use std::path::PathBuf;
use std::sync::Arc;

use paddock_core::EventSink;
use tokio_util::sync::CancellationToken;

use crate::trust::TrustPolicy;
use crate::{Approver, RunOptions, SessionTarget};

pub use config::{AGENTS_FILE, AgentConfig, AgentKey, agents, agents_path, list};

/// The provider recorded in an external agent's sessions (the model is the agent's name).
pub const EXTERNAL_PROVIDER: &str = "acp";

/// How long an agent gets to start and answer `initialize` and `session/new`.
pub const START_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);
/// How long an agent gets to exit once its stdin is closed.
pub const EXIT_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// One prompt to an external agent.
pub struct ExternalRequest {
    /// The agent's name in the user's `agents.json`.
    pub agent: String,
    pub target: SessionTarget,
    pub prompt: String,
    /// Flags over the project's settings (its network allow list, its wall).
    pub options: RunOptions,
    pub approver: Approver,
    pub events: Arc<dyn EventSink>,
    /// Cancels the prompt (the CLI's Ctrl-C); the app stops it through the live runs.
    pub cancel: Option<CancellationToken>,
    pub trust: TrustPolicy,
}

/// Where an agent keeps its own files for a project: beside Paddock's data folder, never
/// inside it (the wall hides that folder, and a writable place inside it would show it).
pub fn agent_home(project: &std::path::Path, agent: &str) -> Result<PathBuf, crate::HostError> {
    let data = paddock_session::data_dir()?;
    let name = data
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "paddock".to_owned());
    Ok(data
        .with_file_name(format!("{name}-agents"))
        .join(paddock_session::project_key(project))
        .join(agent))
}
