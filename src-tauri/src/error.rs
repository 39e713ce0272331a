//! Every command fails with one `AppError {code, message}`; the host maps its errors onto
//! the codes (their messages, already worded for users, kept as they are).

use std::fmt::Display;

use paddock_host::HostError;
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

/// Turns the host's (or a crate's) error into the UI's error: the host chooses the code
/// (`impl From<HostError> for AppError`), the message is kept as worded for users.
pub trait ToAppError {
    fn app_error(self) -> AppError;
}

impl<E: Into<HostError>> ToAppError for E {
    fn app_error(self) -> AppError {
        AppError::from(self.into())
    }
}

/// Runs blocking work (files, the session index, the keychain) off the async threads.
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> AppResult<T> + Send + 'static,
) -> AppResult<T> {
    paddock_host::blocking(f, internal).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_host::session::SessionError;
    use paddock_host::settings::SettingsError;
    use paddock_host::{KeyError, PathError};
    use std::path::PathBuf;

    #[test]
    fn codes_follow_the_error_kind() {
        let missing = HostError::Io {
            context: "cannot open project folder /nope".into(),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        };
        assert_eq!(missing.app_error().code, AppErrorCode::NotFound);
        assert_eq!(
            HostError::from(paddock_host::RequestError::NoModel)
                .app_error()
                .code,
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
