//! Exit codes (documented in `paddock --help`) and the one error type every command returns.

use paddock_host::session::SessionError;
use paddock_host::settings::SettingsError;
use paddock_host::trust::TrustError;
use paddock_host::{HostError, HostErrorKind};
use paddock_protocol::ExitReason;

/// What the process exits with. Keep in step with the help text in `cli.rs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    Success = 0,
    Failure = 1,
    Usage = 2,
    Settings = 3,
    Provider = 4,
    BudgetExceeded = 5,
    LoopDetected = 6,
    MaxTurns = 7,
    Denied = 8,
    /// The answer did not match `--output-schema`.
    Schema = 9,
    Aborted = 130,
}

impl Code {
    pub fn as_i32(self) -> i32 {
        self as i32
    }

    /// The code for a finished run. A refused tool call only decides the code when the
    /// run otherwise succeeded: a budget or loop stop says more.
    pub fn for_run(exit: ExitReason, denied: bool) -> Self {
        match exit {
            ExitReason::EndTurn if denied => Self::Denied,
            ExitReason::EndTurn => Self::Success,
            ExitReason::MaxTurns => Self::MaxTurns,
            ExitReason::Aborted => Self::Aborted,
            ExitReason::BudgetExceeded => Self::BudgetExceeded,
            ExitReason::LoopDetected => Self::LoopDetected,
            ExitReason::Error => Self::Provider,
        }
    }
}

/// A command that could not do its job: a one-line message and the exit code.
#[derive(Debug)]
pub struct CliError {
    pub code: Code,
    pub message: String,
}

impl CliError {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    pub fn usage(message: impl Into<String>) -> Self {
        Self::new(Code::Usage, message)
    }

    pub fn failure(message: impl Into<String>) -> Self {
        Self::new(Code::Failure, message)
    }
}

impl From<HostError> for CliError {
    fn from(e: HostError) -> Self {
        if let HostError::Session(inner) = e {
            return inner.into();
        }
        if let HostError::Untrusted { folder, .. } = &e {
            let hint = format!(
                "\nReview them, then trust them with `paddock trust --project {folder}` (or \
                 pass --trust for this run). Nothing was started or sent."
            );
            return Self::new(Code::Usage, format!("{e}{hint}"));
        }
        let code = match e.kind() {
            HostErrorKind::Usage | HostErrorKind::Untrusted => Code::Usage,
            HostErrorKind::Settings => Code::Settings,
            HostErrorKind::Provider | HostErrorKind::Keychain => Code::Provider,
            HostErrorKind::Session
            | HostErrorKind::Io
            | HostErrorKind::Busy
            | HostErrorKind::NotFound
            | HostErrorKind::Path
            | HostErrorKind::Internal
            | HostErrorKind::Trust => Code::Failure,
        };
        Self::new(code, e.to_string())
    }
}

impl From<SessionError> for CliError {
    fn from(e: SessionError) -> Self {
        let code = match e {
            SessionError::NotFound(_) | SessionError::BadId(_) => Code::Usage,
            _ => Code::Failure,
        };
        Self::new(code, e.to_string())
    }
}

impl From<TrustError> for CliError {
    fn from(e: TrustError) -> Self {
        Self::new(Code::Failure, e.to_string())
    }
}

impl From<SettingsError> for CliError {
    fn from(e: SettingsError) -> Self {
        Self::new(Code::Settings, e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_exit_reason_has_its_own_code() {
        let reasons = [
            ExitReason::EndTurn,
            ExitReason::MaxTurns,
            ExitReason::Aborted,
            ExitReason::BudgetExceeded,
            ExitReason::LoopDetected,
            ExitReason::Error,
        ];
        let mut codes: Vec<i32> = reasons
            .iter()
            .map(|r| Code::for_run(*r, false).as_i32())
            .collect();
        codes.push(Code::for_run(ExitReason::EndTurn, true).as_i32());
        let mut unique = codes.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), codes.len(), "{codes:?}");
        assert_eq!(Code::for_run(ExitReason::MaxTurns, true), Code::MaxTurns);
    }

    #[test]
    fn unknown_sessions_are_usage_errors() {
        let e: CliError = SessionError::NotFound("x".into()).into();
        assert_eq!(e.code, Code::Usage);
        let e: CliError = HostError::Session(SessionError::BadId("../x".into())).into();
        assert_eq!(e.code, Code::Usage);
    }
}
