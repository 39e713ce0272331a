use paddock_core::ModelError;
use paddock_guard::PathError;
use paddock_session::SessionError;

use paddock_protocol::{TrustItem, TrustState};

mod agents;
mod attach;
mod history;
mod request;

pub use agents::AgentConfigError;
pub use attach::AttachError;
pub use history::HistoryError;
pub use request::RequestError;

use crate::settings::SettingsError;
use crate::trust::TrustError;

/// Classes a host maps to exit codes or UI error codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostErrorKind {
    /// Bad flags or arguments.
    Usage,
    Settings,
    Provider,
    Keychain,
    Session,
    Io,
    /// The session is running a prompt already.
    Busy,
    NotFound,
    /// A path the path guard refused or could not open.
    Path,
    /// A bug or a task that stopped unexpectedly.
    Internal,
    /// The folder's settings ask for what the user has not trusted.
    Untrusted,
    /// The trust record cannot be read or written.
    Trust,
}

/// A failure before or around a run, worded for the user.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// A settings field or an edit of one that is not acceptable.
    #[error(transparent)]
    Invalid(#[from] crate::field_error::FieldError),
    /// One of the user's own files (hooks, agents) cannot be used.
    #[error("your {file} {} cannot be used: {why}", path.display())]
    UserFile {
        file: &'static str,
        path: std::path::PathBuf,
        why: String,
    },
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// The user's external agents could not be read, changed or started.
    #[error(transparent)]
    AgentConfig(#[from] AgentConfigError),
    /// A rewind, its undo or a compaction's change was refused.
    #[error(transparent)]
    History(#[from] HistoryError),
    /// A request refused before anything ran.
    #[error(transparent)]
    Request(#[from] RequestError),
    /// A prompt's attachments were refused.
    #[error(transparent)]
    Attach(#[from] AttachError),
    #[error("{0}")]
    Provider(#[from] ModelError),
    #[error("{0}")]
    Keychain(#[from] crate::keys::KeyError),
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error("{context}: {source}")]
    Io {
        context: String,
        source: std::io::Error,
    },
    #[error("{0}")]
    Busy(String),
    #[error("{0}")]
    NotFound(String),
    #[error(transparent)]
    Path(#[from] PathError),
    #[error("internal error: {0}")]
    Internal(String),
    /// Headless runs refuse settings the user has not trusted, naming them.
    #[error("{}", untrusted_text(folder, pending))]
    Untrusted {
        folder: String,
        pending: Vec<TrustItem>,
    },
    #[error(transparent)]
    Trust(#[from] TrustError),
    /// The machine's managed policy cannot be read: runs stop (fail closed).
    #[error(transparent)]
    Managed(#[from] crate::managed::PolicyFileError),
    /// An edit or a run's flag asks for what the managed policy forbids.
    #[error(transparent)]
    Policy(#[from] crate::managed::PolicyRefusal),
    /// A run could not start, and the folder's settings set fields the user has not trusted
    /// (not applied): the error says so, or it asks for what the settings screen shows as set.
    #[error("{source} ({})", not_applied_text(pending))]
    NotApplied {
        source: Box<HostError>,
        pending: Vec<TrustItem>,
    },
    /// The workspace could not be recorded or put back.
    #[error(transparent)]
    Checkpoint(#[from] paddock_changes::CheckpointError),
    /// A session's worktree could not be made, read or landed.
    #[error(transparent)]
    Worktree(#[from] paddock_worktree::WorktreeError),
    /// A saved prompt (`/name`) is unknown, broken, or changed since it was shown.
    #[error(transparent)]
    Prompt(#[from] crate::prompts::PromptError),
    /// A landing carries files folder trust covers and the user has not accepted them.
    #[error("{}", crate::landing_trust::refusal_text(worktree, files))]
    TrustChanges {
        worktree: String,
        files: Vec<crate::landing_trust::TrustFile>,
    },
}

fn untrusted_text(folder: &str, pending: &[TrustItem]) -> String {
    let mut text = format!(
        "the settings of {folder} (.paddock/settings.json) ask for what Paddock does only in a \
         folder you trust:"
    );
    for item in pending {
        text.push_str(&format!("\n  - {} [{}", item.what, item.key));
        if let TrustState::Changed { was } = &item.state {
            text.push_str(&format!(", changed; was {was}"));
        }
        text.push(']');
    }
    text
}

fn not_applied_text(pending: &[TrustItem]) -> String {
    let keys: Vec<&str> = pending.iter().map(|i| i.key.as_str()).collect();
    format!(
        "this folder's .paddock/settings.json also sets {}, not applied until you trust the \
         folder: review it in the project window, or run `paddock trust`",
        keys.join(", ")
    )
}

impl HostError {
    pub fn kind(&self) -> HostErrorKind {
        match self {
            Self::NotApplied { source, .. } => source.kind(),
            Self::Invalid(_) | Self::Attach(_) | Self::History(_) | Self::Request(_) => {
                HostErrorKind::Usage
            }
            Self::UserFile { .. } => HostErrorKind::Settings,
            Self::AgentConfig(e) => match e {
                AgentConfigError::Unknown { .. } => HostErrorKind::NotFound,
                _ => HostErrorKind::Usage,
            },
            Self::Settings(_) => HostErrorKind::Settings,
            Self::Provider(_) => HostErrorKind::Provider,
            Self::Keychain(_) => HostErrorKind::Keychain,
            Self::Session(_) => HostErrorKind::Session,
            Self::Io { .. } => HostErrorKind::Io,
            Self::Busy(_) => HostErrorKind::Busy,
            Self::NotFound(_) => HostErrorKind::NotFound,
            Self::Path(_) => HostErrorKind::Path,
            Self::Internal(_) => HostErrorKind::Internal,
            Self::Untrusted { .. } | Self::TrustChanges { .. } => HostErrorKind::Untrusted,
            Self::Trust(_) => HostErrorKind::Trust,
            Self::Managed(_) => HostErrorKind::Settings,
            Self::Policy(_) => HostErrorKind::Usage,
            Self::Checkpoint(_) => HostErrorKind::Io,
            Self::Prompt(e) => {
                use crate::prompts::PromptError as P;
                match e {
                    P::Unknown { .. } => HostErrorKind::NotFound,
                    P::Trust(_) => HostErrorKind::Trust,
                    _ => HostErrorKind::Usage,
                }
            }
            Self::Worktree(e) => {
                use paddock_worktree::WorktreeError as W;
                match e {
                    W::Unknown { .. } => HostErrorKind::NotFound,
                    W::Git { .. } | W::NoGit(_) | W::Io { .. } | W::Record { .. } => {
                        HostErrorKind::Io
                    }
                    W::Tampered { .. } => HostErrorKind::Path,
                    _ => HostErrorKind::Usage,
                }
            }
        }
    }
}

/// The app's one error shape: the code from what failed, the message as worded for users.
impl From<HostError> for paddock_protocol::AppError {
    fn from(error: HostError) -> Self {
        use paddock_protocol::AppErrorCode as Code;
        let code = match &error {
            HostError::Settings(_) | HostError::Trust(_) => Code::Settings,
            HostError::Session(SessionError::NotFound(_)) => Code::NotFound,
            HostError::Session(SessionError::BadId(_)) => Code::Invalid,
            HostError::Session(_) => Code::Session,
            HostError::Keychain(_) => Code::Keychain,
            HostError::Provider(_) => Code::Provider,
            HostError::Path(e) if e.is_refusal() => Code::PathRefused,
            HostError::Path(PathError::NotFound { .. } | PathError::RootMissing { .. }) => {
                Code::NotFound
            }
            HostError::Path(PathError::Io { .. }) => Code::Io,
            HostError::Worktree(paddock_worktree::WorktreeError::NotARepo { .. }) => {
                Code::NotARepository
            }
            HostError::Path(_) => Code::Invalid,
            HostError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                Code::NotFound
            }
            other => match other.kind() {
                HostErrorKind::Usage => Code::Invalid,
                HostErrorKind::Settings | HostErrorKind::Trust => Code::Settings,
                HostErrorKind::Provider => Code::Provider,
                HostErrorKind::Keychain => Code::Keychain,
                HostErrorKind::Session => Code::Session,
                HostErrorKind::Io => Code::Io,
                HostErrorKind::Busy => Code::Busy,
                HostErrorKind::NotFound => Code::NotFound,
                HostErrorKind::Path => Code::PathRefused,
                HostErrorKind::Internal => Code::Internal,
                HostErrorKind::Untrusted => Code::Untrusted,
            },
        };
        Self {
            code,
            message: error.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The app offers a plain copy on this code, never on the message's words.
    #[test]
    fn a_folder_outside_git_has_its_own_code() {
        let e = HostError::Worktree(paddock_worktree::WorktreeError::NotARepo {
            folder: "/p".into(),
        });
        let app = paddock_protocol::AppError::from(e);
        assert_eq!(app.code, paddock_protocol::AppErrorCode::NotARepository);
        assert!(app.message.contains("plain copy"), "{}", app.message);
        let other =
            HostError::Worktree(paddock_worktree::WorktreeError::Unknown { name: "x".into() });
        assert_ne!(
            paddock_protocol::AppError::from(other).code,
            paddock_protocol::AppErrorCode::NotARepository
        );
    }
}
