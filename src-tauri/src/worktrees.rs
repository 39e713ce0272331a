//! Sessions' worktrees in the project window (issue 35): made and set up for a new
//! session, listed beside the sessions, their changes, the branches to merge into, landed.
//! Each is the host's function; this only moves it off the async threads.

use std::path::Path;
use std::sync::Arc;

use paddock_host::trust::TrustPolicy;
use paddock_host::{AskPolicy, FnSink, NewWorktree, RunOptions};
use paddock_protocol::{WorktreeCreated, WorktreeLanded, WorktreeLanding};

use crate::error::{AppResult, internal};
use crate::state::Desktop;

/// A new worktree (named, or from `hint`, the first prompt), with the trusted `copy` files
/// in it and the trusted `setup` run in its wall (nobody asked: a host the rules do not
/// allow is refused, and the output says so).
pub async fn create(
    desktop: &Desktop,
    root: &Path,
    name: Option<String>,
    hint: Option<String>,
    plain_copy: bool,
) -> AppResult<WorktreeCreated> {
    let (service, at) = (desktop.service.clone(), root.to_path_buf());
    let new = NewWorktree {
        name,
        hint,
        plain_copy,
    };
    let make = move || Ok(service.create_worktree(&at, new, TrustPolicy::SafeDefaults)?);
    let mut made = paddock_host::blocking(make, internal).await?;
    let service = &desktop.service;
    let resolved = service.resolve(root, &RunOptions::default(), TrustPolicy::SafeDefaults)?;
    let quiet = Arc::new(FnSink(|_| {}));
    made.setup = service
        .setup_worktree(
            root,
            &made.worktree.name,
            &resolved,
            AskPolicy::HeadlessDeny,
            quiet,
        )
        .await?;
    Ok(made)
}

/// Commit, merge, keep or discard (`RunService::land_worktree`).
pub async fn land(
    desktop: &Desktop,
    root: &Path,
    name: String,
    landing: WorktreeLanding,
) -> AppResult<WorktreeLanded> {
    let (service, root) = (desktop.service.clone(), root.to_path_buf());
    paddock_host::blocking(
        move || Ok(service.land_worktree(&root, &name, landing)?),
        internal,
    )
    .await
}
