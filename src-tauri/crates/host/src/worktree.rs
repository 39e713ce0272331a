//! Sessions in their own worktree (issue 35), once for both shells: where checkouts and
//! records live, making one with the project's trusted `worktree` settings, and landing
//! one (commit, merge, keep, discard), refused while a prompt runs in it.

use std::path::{Path, PathBuf};

use paddock_protocol::{
    BranchList, FileChange, MergeOutcome, WorktreeChanges, WorktreeCreated, WorktreeInfo,
    WorktreeLanded, WorktreeLanding,
};
use paddock_worktree::{CreateOptions, Layout, Worktree};

use crate::landing_trust::{TrustFile, landed_trust_files};
use crate::trust::TrustPolicy;
use crate::{HostError, RunOptions, RunService};

/// Bytes of a checkout's file compared with its base at most.
const MAX_DIFF_BYTES: u64 = 16 * 1024 * 1024;

pub use crate::places::WORKTREES_DIR_ENV;

/// What a new worktree is called and made from.
#[derive(Debug, Clone, Default)]
pub struct NewWorktree {
    /// Its name; derived from `hint` when unset.
    pub name: Option<String>,
    /// The first prompt, to derive a name from.
    pub hint: Option<String>,
    /// For a folder outside git: a plain copy of it.
    pub plain_copy: bool,
}

/// What discarding removed, for the user's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiscardReport {
    pub commits: u32,
    pub uncommitted: Vec<String>,
}

impl RunService {
    /// The project's worktree folders: records beside the sessions (hidden from bash),
    /// checkouts in a folder of their own (bash sees only the one it works in).
    pub fn worktree_layout(&self, project: &Path) -> Layout {
        let key = paddock_session::project_key(project);
        let data = self.store().root().with_file_name("worktrees");
        let checkouts = match std::env::var_os(WORKTREES_DIR_ENV).filter(|d| !d.is_empty()) {
            Some(dir) => PathBuf::from(dir),
            None => crate::places::beside_data(
                self.store().root().parent().unwrap_or(Path::new(".")),
                crate::places::WORKTREES_SUFFIX,
            ),
        };
        Layout {
            records: data.join(&key),
            checkouts: checkouts.join(key),
            wall: crate::git_wall::OwnWall::shared(),
        }
    }

    /// Makes a worktree for a new session: branch `paddock/<name>` from `worktree.baseRef`
    /// (else HEAD), the trusted `worktree.copy` files copied in.
    pub fn create_worktree(
        &self,
        project: &Path,
        new: NewWorktree,
        trust: TrustPolicy,
    ) -> Result<WorktreeCreated, HostError> {
        let resolved = self.resolve(project, &RunOptions::default(), trust)?;
        let settings = resolved.settings();
        let options = CreateOptions {
            name: new.name,
            hint: new.hint,
            base_ref: settings.worktree.base_ref.clone(),
            copy: settings.worktree.copy.clone(),
            plain_copy: new.plain_copy,
        };
        let (worktree, copied) =
            paddock_worktree::create(project, &self.worktree_layout(project), &options)?;
        tracing::info!(
            name = worktree.name(),
            files = copied.files,
            "worktree made"
        );
        Ok(WorktreeCreated {
            worktree: worktree.info().clone(),
            copied,
            setup: None,
        })
    }

    /// The project repository's branches (not the sessions' own), for "merge into…".
    pub fn branches(&self, project: &Path) -> Result<BranchList, HostError> {
        Ok(
            paddock_worktree::Repo::open(project, &crate::git_wall::OwnWall::shared())?
                .branches()?,
        )
    }

    /// The project's worktrees, oldest first.
    pub fn worktrees(&self, project: &Path) -> Result<Vec<WorktreeInfo>, HostError> {
        Ok(paddock_worktree::list(&self.worktree_layout(project))?
            .iter()
            .map(|w| w.info().clone())
            .collect())
    }

    /// The worktree named `name` (or worked in by the session `name`).
    pub fn worktree(&self, project: &Path, name: &str) -> Result<Worktree, HostError> {
        Ok(paddock_worktree::open(
            &self.worktree_layout(project),
            name,
        )?)
    }

    /// The worktree a session works in, if any.
    pub fn session_worktree(
        &self,
        project: &Path,
        session: &str,
    ) -> Result<Option<Worktree>, HostError> {
        Ok(paddock_worktree::open_for_session(
            &self.worktree_layout(project),
            session,
        )?)
    }

    /// What the worktree's branch and checkout hold beyond its base.
    pub fn worktree_changes(
        &self,
        project: &Path,
        name: &str,
    ) -> Result<WorktreeChanges, HostError> {
        Ok(self.worktree(project, name)?.changes()?)
    }

    /// One file of the worktree's checkout against the worktree's base (`None`: the same).
    /// Read beneath the checkout without following a link; at most 16 MB is compared.
    pub fn worktree_diff(
        &self,
        project: &Path,
        name: &str,
        path: &str,
    ) -> Result<Option<FileChange>, HostError> {
        let worktree = self.worktree(project, name)?;
        let old = worktree.base_file(path)?;
        let root = paddock_guard::PathGuard::new(worktree.checkout()).open_root()?;
        let new = match root.open_rel_read(Path::new(path)) {
            Ok(file) => {
                let mut bytes = Vec::new();
                std::io::Read::read_to_end(
                    &mut std::io::Read::take(file, MAX_DIFF_BYTES),
                    &mut bytes,
                )
                .map_err(|source| HostError::Io {
                    context: format!("cannot read {path}"),
                    source,
                })?;
                Some(bytes)
            }
            Err(paddock_guard::PathError::NotFound { .. }) => None,
            Err(e) => return Err(e.into()),
        };
        if old == new {
            return Ok(None);
        }
        Ok(Some(paddock_changes::file_change(
            path,
            old.as_deref(),
            new.as_deref(),
        )))
    }

    /// Commits, merges, keeps or discards the worktree: one function for both shells.
    /// Refused while a prompt runs in it. A merge's conflicts change nothing and are listed.
    pub fn land_worktree(
        &self,
        project: &Path,
        name: &str,
        landing: WorktreeLanding,
    ) -> Result<WorktreeLanded, HostError> {
        let mut worktree = self.idle_worktree(project, name)?;
        let mut landed = WorktreeLanded {
            worktree: None,
            commit: None,
            merge: None,
            lost: None,
        };
        match landing {
            WorktreeLanding::Commit { message } => {
                let message = self.commit_message(project, &worktree, message.as_deref());
                landed.commit = worktree.commit(&message)?;
                worktree.sync()?;
            }
            WorktreeLanding::Merge {
                into,
                message,
                accept_trust_changes,
            } => {
                let message = self.commit_message(project, &worktree, message.as_deref());
                let trust_files =
                    self.trust_files_landed(project, &worktree, &message, accept_trust_changes)?;
                let outcome = worktree.merge(into.as_deref(), &message)?;
                if matches!(
                    outcome,
                    MergeOutcome::FastForward { .. } | MergeOutcome::Merged { .. }
                ) {
                    self.forget_trust_after(project, &trust_files)?;
                }
                landed.merge = Some(outcome);
            }
            WorktreeLanding::Keep {
                accept_trust_changes,
            } => {
                let message = self.commit_message(project, &worktree, None);
                let trust_files =
                    self.trust_files_landed(project, &worktree, &message, accept_trust_changes)?;
                worktree.keep(&message)?;
                self.forget_trust_after(project, &trust_files)?;
            }
            WorktreeLanding::Discard => {
                let lost = worktree.discard()?;
                landed.lost = Some(WorktreeChanges {
                    commits: lost.commits,
                    files: lost.uncommitted.clone(),
                    uncommitted: lost.uncommitted,
                });
                return Ok(landed);
            }
        }
        landed.worktree = Some(worktree.info().clone());
        Ok(landed)
    }

    /// Paddock's commit of what is left (so a change only the index held is in it), then the
    /// files the branch lands that folder trust covers: refused, naming them, unless
    /// `accepted`. Nothing has moved in the project yet.
    fn trust_files_landed(
        &self,
        project: &Path,
        worktree: &Worktree,
        message: &str,
        accepted: bool,
    ) -> Result<Vec<TrustFile>, HostError> {
        worktree.commit(message)?;
        let auto_run = self
            .resolve(project, &RunOptions::default(), TrustPolicy::SafeDefaults)?
            .settings()
            .auto_run_files
            .clone();
        let files = landed_trust_files(worktree, &auto_run)?;
        if files.is_empty() || accepted {
            return Ok(files);
        }
        Err(HostError::TrustChanges {
            worktree: worktree.name().to_owned(),
            files,
        })
    }

    /// After trust-covered files landed: the folder asks for trust again before its next run.
    fn forget_trust_after(&self, project: &Path, files: &[TrustFile]) -> Result<(), HostError> {
        if !files.is_empty() {
            self.trust().revoke(project)?;
            tracing::info!(
                files = files.len(),
                "trust-covered files landed: trust revoked"
            );
        }
        Ok(())
    }

    /// What discarding the worktree would lose: commits not merged, files not committed.
    pub fn worktree_losses(&self, project: &Path, name: &str) -> Result<DiscardReport, HostError> {
        let lost = self.worktree(project, name)?.would_lose()?;
        Ok(DiscardReport {
            commits: lost.commits,
            uncommitted: lost.uncommitted,
        })
    }

    fn idle_worktree(&self, project: &Path, name: &str) -> Result<Worktree, HostError> {
        let worktree = self.worktree(project, name)?;
        if let Some(session) = &worktree.info().session
            && self.runs().is_running(project, session)
        {
            return Err(HostError::Busy(format!(
                "a prompt is running in the worktree '{}'; stop it or wait for it to finish",
                worktree.name()
            )));
        }
        Ok(worktree)
    }

    /// The message for Paddock's own commit: the user's, else the session's title.
    fn commit_message(&self, project: &Path, worktree: &Worktree, given: Option<&str>) -> String {
        if let Some(m) = given.map(str::trim).filter(|m| !m.is_empty()) {
            return m.to_owned();
        }
        let title = self.worktree_title(project, worktree);
        if title.is_empty() {
            format!("Paddock session {}", worktree.name())
        } else {
            format!("{title}\n\nPaddock session {}", worktree.name())
        }
    }

    /// The title of the session working in `worktree` (its first prompt), or empty.
    pub(crate) fn worktree_title(&self, project: &Path, worktree: &Worktree) -> String {
        worktree
            .info()
            .session
            .as_deref()
            .and_then(|s| self.store().load(project, s).ok())
            .map(|s| s.header.title)
            .unwrap_or_default()
    }
}
