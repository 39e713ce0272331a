//! A bash command as the rules see it: the simple commands it runs (after quote removal,
//! wrappers unwrapped) and the constructs that hide what runs, which force an Ask.
//!
//! The grammar is brush-parser's (the parser of the brush shell, pure Rust; Zed's agent uses
//! it too). tree-sitter-bash (Codex's choice) was measured against it on the same inputs and
//! lost on both counts that matter here: it was slower on every shape tried (twice as slow
//! on a dense 2,000-character command), and it is a highlighting grammar, error-tolerant,
//! that accepts what bash rejects (`ls ;; rm`) and misreads what bash runs (a line
//! continuation inside `sta\<newline>tus` read as two words; `coproc` and `time -p` read as
//! commands). brush-parser rejects what bash rejects, which is what a security check wants:
//! anything that does not parse is an Ask.

mod fast;
mod lists;
mod prescan;
mod source;
mod walk;
mod words;
mod wrappers;

use std::fmt;

use crate::error::ParseError;

pub use lists::{
    BASH_OWN, DANGEROUS_ENV, DANGEROUS_ENV_PREFIXES, SHELL_VARS, STD_BIN_DIRS, command_name,
    is_dangerous_env,
};
pub(crate) use prescan::is_hidden as is_hidden_char;

/// Longest command judged; longer ones are an Ask (and a model has no reason to send them).
pub const MAX_COMMAND_BYTES: usize = 64 * 1024;
/// Most simple commands judged in one call.
pub const MAX_PARTS: usize = 1_000;
/// Deepest nesting of groups, subshells, substitutions and compound commands. brush-parser
/// recurses per level and a stack overflow aborts the process (no unwinding), so depth is
/// bounded before parsing, with a wide margin for 2 MiB worker threads in debug builds.
pub const MAX_NESTING: usize = 32;
/// Deepest re-parse of text that runs as a command (`$(…)` bodies, `sh -c '…'`, `eval`).
pub const MAX_RECURSION: usize = 6;

/// A parsed command: every simple command it may run, and every construct that hides what
/// it runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    pub parts: Vec<Part>,
    pub concerns: Vec<Concern>,
}

impl Parsed {
    /// Whether some construct forces an Ask that no allow rule can lift.
    pub fn forced_ask(&self) -> bool {
        self.concerns.iter().any(|c| c.lift.is_none())
    }
}

/// One simple command, as its words after quote removal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub words: Vec<Word>,
    pub role: Role,
}

/// How a part takes part in the decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Runs a program: deny and ask rules apply, and it needs an allow rule to be allowed.
    Command,
    /// A wrapper that only runs the next part (`timeout 5`, `nohup`, `env A=1`, `xargs`,
    /// `sh -c`): deny and ask rules apply to its words, but it needs no allow rule.
    Wrapper,
    /// Text that runs as a command under a construct that already asks (`eval '…'`,
    /// `find -exec …`): checked against deny and ask rules only.
    Probe,
}

/// One argument as the rules see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Word {
    /// Known before the command runs: the value after quote removal.
    Literal(String),
    /// Exactly one argument whose value is only known when it runs (`"$x"`, `"$(date)"`);
    /// the raw text.
    One(String),
    /// Zero or more arguments only known when it runs: unquoted expansions (field
    /// splitting), globs, brace expansion, xargs input. `glob` is the pattern every produced
    /// argument matches, when the word is an unquoted glob and nothing else.
    Many { raw: String, glob: Option<String> },
}

impl Word {
    pub fn literal(&self) -> Option<&str> {
        match self {
            Word::Literal(s) => Some(s),
            _ => None,
        }
    }

    /// The word as a user reads it: a literal shell-quoted when needed, else its raw text.
    pub fn display(&self) -> String {
        match self {
            Word::Literal(s) => shell_quote(s),
            Word::One(raw) | Word::Many { raw, .. } => raw.clone(),
        }
    }
}

impl Part {
    /// The part as one line a user can read.
    pub fn text(&self) -> String {
        let words: Vec<String> = self.words.iter().map(Word::display).collect();
        words.join(" ")
    }

    /// The literal words, when every word is literal.
    pub fn literal_words(&self) -> Option<Vec<&str>> {
        self.words.iter().map(Word::literal).collect()
    }
}

/// A construct that hides what runs, with the simple command it was found in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Concern {
    pub kind: ConcernKind,
    /// The simple command (or command text) it was found in, as written.
    pub context: String,
    /// The part whose explicit allow rule lifts this concern (`find … -exec`), if any.
    pub lift: Option<usize>,
}

/// What forces the Ask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConcernKind {
    CommandSubstitution,
    ProcessSubstitution,
    /// `eval`, `source`, `exec`, `trap`, `alias`, … (the builtin's name).
    RunsText(String),
    /// Arithmetic that reads variables: bash evaluates `a[$(cmd)]` found in their values.
    Arithmetic,
    /// A literal that bash may evaluate as an array subscript (`'a[$(cmd)]'`).
    Subscript,
    /// An interpreter fed a here-doc or here-string, or reading its program from a pipe.
    InterpreterStdin {
        name: String,
        pipe: bool,
    },
    /// `sh -c` with a string known only when it runs.
    ShellString(String),
    /// A wrapper that hands its arguments to a shell as text (`sudo -s`, `env -S`).
    Resplit(String),
    /// A command name known only when it runs (`$CMD`, a glob, `{a,b}`).
    DynamicName,
    /// An assignment to a variable that changes what runs (`PATH=`, `LD_PRELOAD=`, …) or
    /// how bash reads what follows (`BASH_CMDS`, `BASH_ALIASES`, `IFS`, …).
    Environment(String),
    /// An assignment to a variable named only when it runs (`export "$v=x"`, `read "$v"`): it
    /// may be one of those.
    UnknownVariable(String),
    /// A shell option, flag or builtin that changes how bash reads or runs later commands
    /// (`shopt -s expand_aliases`, `set -o posix`, `bash -l`, `unalias`, `declare -n`): what
    /// was written, and what it does.
    ShellState {
        what: String,
        effect: &'static str,
    },
    /// A redirection to an absolute path, out of the workspace, or not known before it runs.
    Redirect(String),
    /// Control or invisible characters (other than tab and newline).
    ControlCharacter,
    /// A wrapper option this matcher does not know, so the wrapped command is unclear.
    WrapperOption(String),
    /// `find -exec` / `-execdir` / `-ok` runs commands for each file (the action named).
    FindExec(String),
    /// An argument that makes git run a program it names (`rebase -x`, `-c core.hooksPath=…`):
    /// the word as written, and why.
    GitProgram {
        word: String,
        why: String,
    },
    /// Text that runs as a command but does not parse, or nests too deep.
    Unparsed(String),
}

impl fmt::Display for ConcernKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::CommandSubstitution => write!(f, "command substitution $(…)"),
            Self::ProcessSubstitution => write!(f, "process substitution <(…)"),
            Self::RunsText(name) => write!(f, "`{name}` runs text or a file as commands"),
            Self::Arithmetic => write!(f, "arithmetic on variables (it can run commands)"),
            Self::Subscript => write!(f, "text bash may evaluate as an array subscript"),
            Self::InterpreterStdin { name, pipe: true } => {
                write!(f, "`{name}` reads its program from a pipe")
            }
            Self::InterpreterStdin { name, pipe: false } => {
                write!(f, "a here-document or here-string fed to `{name}`")
            }
            Self::ShellString(what) => write!(f, "`{what}` runs a string only known when it runs"),
            Self::Resplit(what) => write!(f, "`{what}` runs its arguments as shell text"),
            Self::DynamicName => write!(f, "a command name only known when it runs"),
            Self::Environment(name) => match lists::shell_var_effect(name) {
                Some(effect) => write!(f, "assigns {name}, {effect}"),
                None => write!(f, "setting {name} changes what runs"),
            },
            Self::UnknownVariable(raw) => write!(
                f,
                "assigns a variable named only when it runs ({raw}), which may be one bash reads"
            ),
            Self::ShellState { what, effect } => write!(f, "`{what}` {effect}"),
            Self::Redirect(target) => write!(f, "a redirection to {target}"),
            Self::ControlCharacter => write!(f, "control or invisible characters"),
            Self::WrapperOption(opt) => {
                write!(f, "a wrapper option this matcher does not know ({opt})")
            }
            Self::FindExec(action) => write!(f, "`find {action}` runs a command for each file"),
            Self::GitProgram { why, .. } => write!(f, "{why}"),
            Self::Unparsed(why) => write!(f, "nested command text that {why}"),
        }
    }
}

impl fmt::Display for Concern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} in \"{}\"", self.kind, crate::snippet(&self.context))
    }
}

/// Parses a bash command into the parts the rules judge. Never panics; input that does not
/// parse, is too long, nests too deep or has too many parts is an error (the caller asks).
pub fn parse_command(cmd: &str) -> Result<Parsed, ParseError> {
    walk::parse_top(cmd, true)
}

/// [`parse_command`] reading every text with the full grammar, never the fast reader of
/// common commands: for the differential test that holds the two to the same result.
#[doc(hidden)]
pub fn parse_command_full_grammar(cmd: &str) -> Result<Parsed, ParseError> {
    walk::parse_top(cmd, false)
}

/// Whether the fast reader reads `cmd` itself (the common commands must stay fast).
#[doc(hidden)]
pub fn read_fast(cmd: &str) -> bool {
    !prescan::has_hidden_characters(cmd) && fast::split(cmd).is_some()
}

/// Quotes a word for a bash command line or a command pattern, only when it needs it.
pub(crate) fn shell_quote(s: &str) -> String {
    const PLAIN: &str = "-_./:=,+@%^";
    let plain = !s.is_empty()
        && s.chars().all(|c| {
            c.is_ascii_alphanumeric() || PLAIN.contains(c) || (!c.is_ascii() && !c.is_control())
        });
    if plain {
        s.to_owned()
    } else if !s.contains('\'') {
        format!("'{s}'")
    } else {
        let mut out = String::with_capacity(s.len() + 2);
        out.push('"');
        for c in s.chars() {
            if matches!(c, '"' | '\\' | '$' | '`') {
                out.push('\\');
            }
            out.push(c);
        }
        out.push('"');
        out
    }
}
