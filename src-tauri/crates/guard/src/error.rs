//! Why a path was refused or could not be opened, and the folders no file tool may change.

use std::io;

/// Symlinks followed in one resolution before it counts as a loop (Linux's own limit).
pub const MAX_SYMLINK_HOPS: usize = 40;

/// Why a path was refused or could not be opened. The message is what the model sees.
#[derive(Debug, thiserror::Error)]
pub enum PathError {
    #[error("no workspace folder is configured for this agent")]
    NoWorkspace,
    #[error(
        "the workspace folder {root} does not exist yet (nothing has been written there); \
         file_write creates it"
    )]
    RootMissing { root: String },
    #[error("the workspace root {root} is not a directory")]
    RootNotDir { root: String },
    #[error("the path is empty; give a path relative to the workspace root")]
    Empty,
    #[error("'{path}' is outside the workspace; use a path relative to the workspace root")]
    Outside { path: String },
    #[error("'{path}' leads through the symlink '{link}', which points outside the workspace")]
    LinkOutside { path: String, link: String },
    #[error("'{path}' runs into a symlink loop (more than {MAX_SYMLINK_HOPS} links)")]
    Loop { path: String },
    #[error("'{path}' does not exist")]
    NotFound { path: String },
    #[error("'{path}' is a directory, not a file")]
    IsDir { path: String },
    #[error("'{path}' is not a regular file ({kind})")]
    NotRegular { path: String, kind: crate::FileKind },
    #[error("'{path}' changed while it was being opened and would lead outside the workspace")]
    Raced { path: String },
    #[error(
        "'{path}' is inside {area}, which the agent may not change (Paddock keeps .git and \
         .paddock read-only: they hold the project's history, hooks and Paddock's settings)"
    )]
    ReadOnly { path: String, area: String },
    #[error(
        "the workspace folder {root} is a symlink; Paddock works only in a real folder inside \
         the project (remove the link, or let Paddock create the folder)"
    )]
    RootIsLink { root: String },
    #[error("the workspace folder {root} resolves outside the project folder {project}")]
    RootOutside { root: String, project: String },
    #[error(
        "the workspace folder {root} {what}; Paddock will not let an agent work there \
         (it could read credentials and change Paddock's own trust records). Open a project \
         folder inside it, or keep the agent in its own .agent-workspace"
    )]
    RootHoldsPrivate { root: String, what: String },
    #[error("'{path}': {source}")]
    Io { path: String, source: io::Error },
}

impl PathError {
    /// The fence refused the path (as opposed to it being missing or unreadable).
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            Self::Outside { .. }
                | Self::LinkOutside { .. }
                | Self::Loop { .. }
                | Self::Raced { .. }
                | Self::ReadOnly { .. }
                | Self::RootIsLink { .. }
                | Self::RootOutside { .. }
                | Self::RootHoldsPrivate { .. }
                | Self::Empty
        )
    }
}

/// Folders the agent may read but never write, wherever they are in the workspace: the
/// repository (its hooks run on the user's next commit) and Paddock's own settings.
pub const READ_ONLY_DIRS: [&str; 2] = [".git", ".paddock"];
