//! Why a hook configuration is refused. Each error names the place the way the settings file
//! writes it (`hooks.PreToolUse[0].hooks[1]`) and, for a matcher or a rule, the hook it
//! belongs to. Nothing Paddock cannot honour is dropped quietly: an event, key, hook type or
//! option it does not support is refused by name, with the reason.

/// A hook configuration Paddock will not use; the user fixes the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HookConfigError {
    /// The text is not JSON at all.
    #[error("hooks: not valid JSON ({0})")]
    Syntax(String),
    /// An event Claude Code or Codex has and Paddock does not.
    #[error("hook event `{event}` is not supported by Paddock: {why}")]
    UnsupportedEvent { event: String, why: &'static str },
    /// A name that is no hook event anywhere.
    #[error("unknown hook event `{event}` (Paddock's events: {known})")]
    UnknownEvent { event: String, known: String },
    /// A key this shape does not have.
    #[error("{at}: unknown key `{key}` (expected {expected})")]
    UnknownKey {
        at: String,
        key: String,
        expected: &'static str,
    },
    /// A key (or a value of it) Claude Code or Codex reads and Paddock does not honour.
    #[error("{at}: `{key}` is not supported by Paddock: {why}")]
    UnsupportedKey {
        at: String,
        key: String,
        why: String,
    },
    /// A hook `type` other than `command`.
    #[error("{at}: hook type `{kind}` is not supported by Paddock: {why}")]
    UnsupportedType {
        at: String,
        kind: String,
        why: &'static str,
    },
    /// A matcher that cannot be used (bad regular expression, unknown tool, …).
    #[error("{at}: matcher `{matcher}` (of {hook}): {reason}")]
    BadMatcher {
        at: String,
        matcher: String,
        hook: String,
        reason: String,
    },
    /// A Paddock rule (`bash(git push *)`) that cannot be used.
    #[error("{at}: rule `{rule}` (of {hook}): {reason}")]
    BadRule {
        at: String,
        rule: String,
        hook: String,
        reason: String,
    },
    /// Any other wrong value or shape.
    #[error("{at}: {reason}")]
    Invalid { at: String, reason: String },
}
