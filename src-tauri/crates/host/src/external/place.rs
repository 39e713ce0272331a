//! Where an external agent works: the project's workspace, or a session's worktree (its
//! checkout is the project's folder there, behind the worktree's wall), as Paddock's own
//! runs do.

use std::path::Path;

use crate::{HostError, Project, Resolved, RunService, SessionTarget};

/// The project the agent's wall is built for, and the worktree when it works in one (the one
/// named for a new session, the session's own on resume).
pub(super) fn place(
    service: &RunService,
    root: &Path,
    target: &SessionTarget,
    worktree: Option<String>,
    resolved: &Resolved,
) -> Result<(Project, Option<paddock_worktree::Worktree>), HostError> {
    let mut found = service.worktree_for(root, target, worktree)?;
    if let Some(w) = found.as_mut() {
        w.reopen()?;
    }
    let project = match &found {
        None => resolved.project(),
        Some(w) => resolved.clone().in_worktree(w)?.project(),
    };
    Ok((project, found))
}

/// After the prompt: what the agent committed in its worktree shows as `paddock/<name>` in
/// the project at once.
pub(super) async fn sync(worktree: paddock_worktree::Worktree, session: &str) {
    match tokio::task::spawn_blocking(move || worktree.sync()).await {
        Ok(Ok(_)) => {}
        Ok(Err(e)) => tracing::warn!(session, "worktree branch not brought over: {e}"),
        Err(e) => tracing::warn!(session, "worktree sync stopped: {e}"),
    }
}
