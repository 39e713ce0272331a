use paddock_core::ModelError;
use paddock_sandbox::PathError;
use paddock_session::SessionError;

use crate::settings::SettingsError;

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
}

/// A failure before or around a run, worded for the user.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    Settings(#[from] SettingsError),
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
}

impl HostError {
    pub fn kind(&self) -> HostErrorKind {
        match self {
            Self::Usage(_) => HostErrorKind::Usage,
            Self::Settings(_) => HostErrorKind::Settings,
            Self::Provider(_) => HostErrorKind::Provider,
            Self::Keychain(_) => HostErrorKind::Keychain,
            Self::Session(_) => HostErrorKind::Session,
            Self::Io { .. } => HostErrorKind::Io,
            Self::Busy(_) => HostErrorKind::Busy,
            Self::NotFound(_) => HostErrorKind::NotFound,
            Self::Path(_) => HostErrorKind::Path,
            Self::Internal(_) => HostErrorKind::Internal,
        }
    }
}
