//! Where an external agent works: the project's workspace, or a session's worktree (its
//! checkout is the project's folder there, behind the worktree's wall), as Paddock's own
//! runs do.

use std::path::Path;

use paddock_protocol::ProjectSettings;

use crate::project::{WorktreeWall, canonical_dir};
use crate::{HostError, Project, RunService, SessionTarget};

/// The project the agent's wall is built for, and the worktree when it works in one (the one
/// named for a new session, the session's own on resume).
pub(super) fn place(
    service: &RunService,
    root: &Path,
    target: &SessionTarget,
    worktree: Option<String>,
    settings: ProjectSettings,
) -> Result<(Project, Option<paddock_worktree::Worktree>), HostError> {
    let mut found = service.worktree_for(root, target, worktree)?;
    if let Some(w) = found.as_mut() {
        w.reopen()?;
    }
    let project = match &found {
        None => Project {
            root: root.to_path_buf(),
            settings,
            worktree: None,
        },
        Some(w) => Project {
            root: canonical_dir(&w.project_dir())?,
            settings,
            worktree: Some(WorktreeWall::of(w)),
        },
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
