//! Argument rules for tool grants. A grant says whether a tool may run; a rule says so for
//! some of its calls: `bash` commands by their words (shell-aware: every simple command is
//! judged, constructs that hide what runs always ask), the file tools by path glob, other
//! tools (MCP) per call. A pure library: the host maps its settings to [`RuleSpec`]s, the
//! core asks [`Rules::decide`] through a trait, and the approval card asks [`propose`].
//!
//! Rules sit on top of the OS wall around bash: an over-broad rule still cannot leave the
//! fence, but the rules must still be right.

mod compile;
mod error;
pub mod git;
mod path;
mod pattern;
mod propose;
mod settings;
pub mod shell;

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

pub use compile::{MAX_KEY_BYTES, MAX_RULES, Rules};
pub use error::{ParseError, RuleError};
pub use pattern::{MAX_PATTERN_BYTES, MAX_PATTERN_WORDS};
pub use propose::propose;
pub use settings::specs_from_json;
pub use shell::{Parsed, parse_command};

/// The tool whose rules are command patterns.
pub const BASH_TOOL: &str = "bash";
/// The tools whose rules are path globs.
pub const FILE_TOOLS: [&str; 5] = ["file_read", "file_write", "file_edit", "grep", "glob"];
/// Longest quote of a command or pattern in a `why`.
const MAX_SNIPPET_CHARS: usize = 80;

/// What a rule says, ordered by severity (`Deny` is the greatest).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Allow,
    Ask,
    Deny,
}

/// One rule as the settings hold it, in the settings' order.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RuleSpec {
    /// A tool name, or a tool-name pattern with `*` at the end (`mcp__github__*`).
    pub tool: String,
    pub action: Action,
    pub pattern: String,
}

/// A decision on one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// `None`: no rule decides; the tool's own grant applies.
    pub action: Option<Action>,
    /// One sentence a user can read.
    pub why: String,
    /// Indices (into the compiled specs) of the rules behind the decision.
    pub matched: Vec<usize>,
}

/// A command or pattern as quoted in a `why`: one line, printable, bounded.
pub(crate) fn snippet(text: &str) -> Cow<'_, str> {
    let clean = |c: char| {
        if c.is_control() || shell::is_hidden_char(c) {
            ' '
        } else {
            c
        }
    };
    if text.chars().count() <= MAX_SNIPPET_CHARS && !text.chars().any(|c| clean(c) != c) {
        return Cow::Borrowed(text);
    }
    let mut out: String = text.chars().take(MAX_SNIPPET_CHARS).map(clean).collect();
    if text.chars().count() > MAX_SNIPPET_CHARS {
        out.push('…');
    }
    Cow::Owned(out)
}
