use paddock_kernel::ModelError;
use paddock_kernel::session::SessionError;
use paddock_kernel::settings::SettingsError;

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
        }
    }
}
