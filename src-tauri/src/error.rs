//! Every command fails with one `AppError {code, message}`; the kernel's and host's errors
//! map onto its codes here, with their messages (already worded for users) kept as they are.

use std::fmt::Display;

use paddock_host::session::SessionError;
use paddock_host::settings::SettingsError;
use paddock_host::trust::TrustError;
use paddock_host::{HostError, HostErrorKind, KeyError, ModelError, PathError};
use paddock_protocol::{AppError, AppErrorCode};

pub type AppResult<T> = Result<T, AppError>;

pub fn app_error(code: AppErrorCode, message: impl Display) -> AppError {
    AppError {
        code,
        message: message.to_string(),
    }
}

pub fn invalid(message: impl Display) -> AppError {
    app_error(AppErrorCode::Invalid, message)
}

pub fn internal(message: impl Display) -> AppError {
    app_error(AppErrorCode::Internal, message)
}

/// Turns a crate's error into the UI's error, choosing the code.
pub trait ToAppError {
    fn app_error(self) -> AppError;
}

impl ToAppError for HostError {
    fn app_error(self) -> AppError {
        match self {
            Self::Settings(e) => e.app_error(),
            Self::Session(e) => e.app_error(),
            Self::Keychain(e) => e.app_error(),
            Self::Provider(e) => e.app_error(),
            Self::Path(e) => e.app_error(),
            Self::Trust(e) => e.app_error(),
            Self::Io { ref source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                app_error(AppErrorCode::NotFound, &self)
            }
            other => {
                let code = match other.kind() {
                    HostErrorKind::Usage => AppErrorCode::Invalid,
                    HostErrorKind::Settings => AppErrorCode::Settings,
                    HostErrorKind::Provider => AppErrorCode::Provider,
                    HostErrorKind::Keychain => AppErrorCode::Keychain,
                    HostErrorKind::Session => AppErrorCode::Session,
                    HostErrorKind::Io => AppErrorCode::Io,
                    HostErrorKind::Busy => AppErrorCode::Busy,
                    HostErrorKind::NotFound => AppErrorCode::NotFound,
                    HostErrorKind::Path => AppErrorCode::PathRefused,
                    HostErrorKind::Internal => AppErrorCode::Internal,
                    HostErrorKind::Untrusted => AppErrorCode::Untrusted,
                    HostErrorKind::Trust => AppErrorCode::Settings,
                };
                app_error(code, other)
            }
        }
    }
}

impl ToAppError for SettingsError {
    fn app_error(self) -> AppError {
        app_error(AppErrorCode::Settings, self)
    }
}

impl ToAppError for SessionError {
    fn app_error(self) -> AppError {
        let code = match self {
            Self::NotFound(_) => AppErrorCode::NotFound,
            Self::BadId(_) => AppErrorCode::Invalid,
            _ => AppErrorCode::Session,
        };
        app_error(code, self)
    }
}

impl ToAppError for PathError {
    fn app_error(self) -> AppError {
        let code = match &self {
            refused if refused.is_refusal() => AppErrorCode::PathRefused,
            Self::NotFound { .. } | Self::RootMissing { .. } => AppErrorCode::NotFound,
            Self::Io { .. } => AppErrorCode::Io,
            _ => AppErrorCode::Invalid,
        };
        app_error(code, self)
    }
}

impl ToAppError for TrustError {
    fn app_error(self) -> AppError {
        app_error(AppErrorCode::Settings, self)
    }
}

impl ToAppError for KeyError {
    fn app_error(self) -> AppError {
        app_error(AppErrorCode::Keychain, self)
    }
}

impl ToAppError for ModelError {
    fn app_error(self) -> AppError {
        app_error(AppErrorCode::Provider, self)
    }
}

/// A blocking task that panicked or was cancelled.
impl ToAppError for tauri::Error {
    fn app_error(self) -> AppError {
        internal(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn codes_follow_the_error_kind() {
        let missing = HostError::Io {
            context: "cannot open project folder /nope".into(),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        };
        assert_eq!(missing.app_error().code, AppErrorCode::NotFound);
        assert_eq!(
            HostError::Usage("no model".into()).app_error().code,
            AppErrorCode::Invalid
        );
        let outside = PathError::Outside {
            path: "../x".into(),
        };
        let e = outside.app_error();
        assert_eq!(e.code, AppErrorCode::PathRefused);
        assert!(e.message.contains("outside the workspace"), "{}", e.message);
        assert_eq!(
            SessionError::NotFound("x".into()).app_error().code,
            AppErrorCode::NotFound
        );
        let broken = SettingsError::Unsafe {
            path: PathBuf::from("/p/.paddock/settings.json"),
            problem: "bad".into(),
        };
        assert_eq!(broken.app_error().code, AppErrorCode::Settings);
        let key = KeyError::Unavailable("no D-Bus".into()).app_error();
        assert_eq!(key.code, AppErrorCode::Keychain);
        assert!(key.message.contains("never stored in plain text"));
    }

    #[test]
    fn errors_serialize_as_code_and_message() {
        let v = serde_json::to_value(invalid("bad")).unwrap();
        assert_eq!(v, serde_json::json!({"code": "invalid", "message": "bad"}));
    }
}
