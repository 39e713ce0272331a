//! `bash`: run a shell command in the workspace, behind the wall (`walled`): a scrubbed
//! environment, a timeout that kills the whole process group, redacted output and, on
//! Linux, the OS sandbox.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::bash_output::layout;
use paddock_core::{ToolContext, ToolError, ToolOutput, TypedTool, WriteScope};
use paddock_protocol::{CallPreview, ProtectionKind, ProtectionState};

use crate::ToolEnv;
pub use paddock_wall::command::{
    EXIT_ABORTED, EXIT_NOT_STARTED, EXIT_TIMEOUT, STDERR_CAP_BYTES, STDOUT_CAP_BYTES,
};

/// Time limit when the call gives none.
pub const DEFAULT_TIMEOUT_SECS: u64 = 30;
/// Longest time limit a call may ask for.
pub const MAX_TIMEOUT_SECS: u64 = 600;

/// Run a bash command (`bash -c`) in the workspace root and return its stdout, then its
/// stderr under a `--- stderr ---` marker, then the exit code. The environment is minimal
/// (no API keys or tokens); on Linux the command can write only inside the workspace and
/// its private $TMPDIR, and has no network unless the project grants it. Background
/// processes are stopped when the command ends. Long output is cut in the middle.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct BashInput {
    /// The command line, run with `bash -c`.
    pub command: String,
    /// Time limit in seconds (default 30, at most 600). On timeout everything the command
    /// started is killed and the exit code is 124.
    pub timeout_secs: Option<u64>,
}

pub struct BashTool {
    env: Arc<ToolEnv>,
}

impl BashTool {
    pub fn new(env: Arc<ToolEnv>) -> Self {
        Self { env }
    }
}

#[async_trait]
impl TypedTool for BashTool {
    type Input = BashInput;
    const NAME: &'static str = "bash";

    fn max_output_chars(&self) -> Option<usize> {
        // The tool cuts each stream itself; leave room for markers and notes.
        Some(STDOUT_CAP_BYTES + STDERR_CAP_BYTES + 2000)
    }

    fn timeout(&self) -> Option<Duration> {
        // Longer than any per-call limit, so bash's own timeout (exit 124) fires first.
        Some(Duration::from_secs(MAX_TIMEOUT_SECS + 30))
    }

    /// A command may change anything in the workspace: it runs alone among writers.
    fn write_scope(&self, _input: &BashInput) -> WriteScope {
        WriteScope::Workspace
    }

    async fn preview(&self, input: BashInput) -> Option<CallPreview> {
        let env = self.env.clone();
        let status = tokio::task::spawn_blocking(move || env.sandbox_status())
            .await
            .ok()?;
        let network = self.env.sandbox.bash_network
            || status
                .protection(ProtectionKind::Network)
                .is_none_or(|p| p.state != ProtectionState::Enforced);
        let timeout_secs = u32::try_from(timeout_of(&input).as_secs()).unwrap_or(u32::MAX);
        Some(CallPreview::Command {
            command: input.command,
            cwd: status.workspace_root.clone(),
            network,
            confinement: status.summary,
            timeout_secs,
        })
    }

    async fn run(&self, input: BashInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        if input.command.trim().is_empty() {
            return Err(ToolError::InvalidInput("command is empty".to_owned()));
        }
        let command = paddock_wall::command::WalledCommand::line(&input.command);
        let ran =
            paddock_wall::command::run_walled(&self.env.wall(), &command, timeout_of(&input), ctx)
                .await;
        let text = layout(&ran.stdout, &ran.stderr, &ran.notes, ran.exit_code);
        Ok(if ran.exit_code == 0 {
            ToolOutput::ok(text)
        } else {
            ToolOutput::error(text)
        })
    }
}

fn timeout_of(input: &BashInput) -> Duration {
    Duration::from_secs(
        input
            .timeout_secs
            .unwrap_or(DEFAULT_TIMEOUT_SECS)
            .clamp(1, MAX_TIMEOUT_SECS),
    )
}
