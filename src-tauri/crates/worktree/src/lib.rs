//! A session's own checkout of the project's repository (issue 35).
//!
//! A checkout is a clone that shares the project's objects read-only (`git clone --shared`:
//! its `alternates` name the project's object folder) on a branch `paddock/<name>`, kept
//! outside the project. Everything a commit in it writes (objects, refs, index) is the
//! clone's own, so the wall can make the checkout the session's only writable place while
//! git still works there; nothing of the project's repository is writable to the agent.
//! Paddock brings the branch into the project (`git fetch`, which checks every object it
//! copies) and merges it. Every git that Paddock runs here runs behind a wall of its own
//! (`wall`: only what the operation must write is writable, no home, keys or network), has
//! hooks and the file-system monitor off, never follows a `commondir` the session wrote, and
//! starts only after every entry of the checkout's git folder was seen to be a plain folder
//! or regular file (`gitdir`): a link there is refused by name, never written through.

mod copy;
mod git;
mod gitdir;
mod layout;
mod make;
mod options;
mod record;
mod wall;

use std::path::PathBuf;

pub use copy::copy_into;
pub use git::Repo;
pub use gitdir::MAX_GIT_ENTRIES;
pub use make::create;
pub use options::{CreateOptions, slug};
pub use record::land::Discarded;
pub use record::plain::INTO_FOLDER;
pub use record::{Layout, Worktree, list, open, open_for_session};
pub use wall::{GitWall, Reach, Wall};

/// Branches of session worktrees are `paddock/<name>`.
pub const BRANCH_PREFIX: &str = "paddock/";
/// Longest worktree name.
pub const MAX_NAME: usize = 48;

#[derive(Debug, thiserror::Error)]
pub enum WorktreeError {
    #[error(
        "{folder} is not in a git repository: work in a plain copy of it instead (the app offers one; `paddock exec --worktree --copy`), or run `git init` and commit first"
    )]
    NotARepo { folder: String },
    #[error(
        "the repository has no commit yet: commit once before starting a session in a worktree"
    )]
    NoCommit,
    #[error(
        "'{name}' cannot name a worktree: use lowercase letters, digits, '.', '-' or '_' (at most {MAX_NAME}), starting with a letter or digit"
    )]
    BadName { name: String },
    #[error("a worktree or branch named '{name}' already exists")]
    Exists { name: String },
    #[error("no worktree named '{name}' in this project")]
    Unknown { name: String },
    #[error("'{base}' is not a commit or branch of this repository")]
    BadBase { base: String },
    #[error("'{branch}' is not a branch of this repository")]
    BadBranch { branch: String },
    #[error("the worktree '{name}' has no checkout any more ({state})")]
    NotActive { name: String, state: String },
    #[error(
        "the worktree's git folder was changed in a way Paddock does not follow ({what}); its branch is left as it was"
    )]
    Tampered { what: String },
    #[error(
        "the checkout is on {head}, not on its branch {branch}: switch back (`git switch {branch}`) first"
    )]
    OffBranch { head: String, branch: String },
    #[error(
        "{branch} is checked out in {path} with local changes that the merge would overwrite; nothing was changed:\n{detail}"
    )]
    LocalChanges {
        branch: String,
        path: String,
        detail: String,
    },
    #[error("'{path}' is not a plain path inside the checkout")]
    BadPath { path: String },
    #[error("`git {args}` failed: {stderr}")]
    Git { args: String, stderr: String },
    #[error("Paddock's own git could not be walled in, so it did not run: {detail}")]
    Wall { detail: String },
    #[error("git could not be run: {0} (is git installed?)")]
    NoGit(std::io::Error),
    #[error("{context}: {source}")]
    Io {
        context: String,
        source: std::io::Error,
    },
    #[error("the worktree record {path} is unreadable: {detail}")]
    Record { path: PathBuf, detail: String },
}

/// A name git and the file system both take: lowercase letters, digits, `.`, `-`, `_`.
pub(crate) fn valid_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    !name.is_empty()
        && name.len() <= MAX_NAME
        && bytes[0].is_ascii_alphanumeric()
        && bytes.iter().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'_')
        })
        && !name.contains("..")
        && !name.ends_with(".lock")
        && !name.ends_with('.')
}

pub(crate) fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> WorktreeError {
    let context = context.into();
    move |source| WorktreeError::Io { context, source }
}
