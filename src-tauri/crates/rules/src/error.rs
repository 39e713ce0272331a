//! The two ways this crate says no: a rule that cannot be compiled (the settings are wrong,
//! the user fixes them) and a command that cannot be read (the call asks).

/// A rule in the settings that cannot be used, named the way the settings file names it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// The `rules` value as a whole has the wrong shape.
    #[error("rules: {reason}")]
    Shape { reason: String },
    /// A tool key, or its list, is wrong: `rules.bash: …`.
    #[error("rules.{tool}: {reason}")]
    Key { tool: String, reason: String },
    /// One rule is wrong: `rules.bash[3]: …` (the index within its tool's list).
    #[error("rules.{tool}[{index}]: {reason}")]
    Rule {
        tool: String,
        index: usize,
        reason: String,
    },
}

/// Why a bash command could not be judged; `decide` turns any of these into an Ask.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("the command is {len} bytes, over the {max}-byte limit")]
    TooLong { len: usize, max: usize },
    #[error("the command nests deeper than {max} levels")]
    TooDeep { max: usize },
    #[error("the command runs more than {max} simple commands")]
    TooManyParts { max: usize },
    #[error("the command does not parse as bash ({0})")]
    Syntax(String),
}
