//! `worktree.setup`: the project's command that makes a new checkout ready (`npm ci`), run
//! by bash in the session's own wall: the checkout its only writable place, the project's
//! network policy, the scrubbed environment, bash's time limit raised to its maximum.

use std::path::Path;
use std::sync::Arc;

use paddock_core::{Approvals, AskPolicy, EventSink, ToolContext, ToolRegistry};
use paddock_protocol::{ToolCall, WorktreeSetup};

use crate::{HostError, Resolved, RunService};

/// Seconds the setup may take (bash's own maximum).
pub const SETUP_TIMEOUT_SECS: u64 = 600;

impl RunService {
    /// Runs the (trusted) `worktree.setup` of `resolved` in the worktree `name`; `None`
    /// when the settings have none. Connections and held files go to `events`. Nobody is
    /// asked: a host the network rules do not allow is refused (`policy` decides), and
    /// the output names it.
    pub async fn setup_worktree(
        &self,
        project: &Path,
        name: &str,
        resolved: &Resolved,
        policy: AskPolicy,
        events: Arc<dyn EventSink>,
    ) -> Result<Option<WorktreeSetup>, HostError> {
        let Some(command) = resolved.settings().worktree.setup.clone() else {
            return Ok(None);
        };
        let worktree = self.worktree(project, name)?;
        // The checkout is the workspace: setup fills the whole tree, whatever the mode.
        let wall = resolved
            .clone()
            .narrowed(|s| s.workspace = paddock_protocol::WorkspaceMode::Project)
            .in_worktree(&worktree)?
            .project();
        let env = wall.tool_env(Vec::new());
        let status = {
            let env = env.clone();
            tokio::task::spawn_blocking(move || env.sandbox_status())
                .await
                .map_err(|e| HostError::Internal(e.to_string()))?
        };
        if !status.bash_runs {
            // The same rule as the agent's bash: no wall, no command (unless accepted).
            return Ok(Some(WorktreeSetup {
                command,
                ok: false,
                output: format!("not run: bash cannot be confined here ({})", status.summary),
            }));
        }
        let mut registry = ToolRegistry::new();
        paddock_tools::register_builtin_tools(&mut registry, &env)
            .map_err(|e| HostError::Internal(e.to_string()))?;
        let bash = registry
            .get("bash")
            .cloned()
            .ok_or_else(|| HostError::Internal("bash is missing".into()))?;
        let input = serde_json::json!({ "command": command, "timeout_secs": SETUP_TIMEOUT_SECS });
        let call = Arc::new(ToolCall {
            id: format!("worktree-setup-{name}"),
            name: "bash".into(),
            input: input.clone(),
            parsed_from_text: false,
        });
        let ctx = ToolContext {
            call: Some(call),
            agent: "worktree setup".into(),
            chain: Arc::from(vec!["worktree setup".to_owned()]),
            cancel: tokio_util::sync::CancellationToken::new().into(),
            events,
            approvals: Arc::new(Approvals::new(policy)),
            grants: Arc::default(),
            writes: Arc::default(),
            approved: None,
            told: Arc::default(),
            hooks: std::sync::Arc::new(paddock_core::hooks::NoHooks),
        };
        tracing::info!(worktree = name, %command, "worktree setup");
        let (ok, output) = match bash.call(&input, &ctx).await {
            Ok(out) => (!out.is_error(), out.content.into_string()),
            Err(e) => (false, e.to_string()),
        };
        Ok(Some(WorktreeSetup {
            command,
            ok,
            output,
        }))
    }
}
