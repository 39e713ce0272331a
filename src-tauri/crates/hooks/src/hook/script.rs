//! Which files a hook's command may run or read as its script, so that trust can pin their
//! content: a trusted hook must not run whatever the agent later wrote into the file it names
//! (issue 50). The command is read the way bash splits it, and conservatively:
//!
//! - every word that may be a path is a candidate (`sh x.sh`, `bash x`, `./x`, `python3 x.py`,
//!   `node x.js`, `"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh`, `--config=x.toml`), with the
//!   spellings an interpreter also tries (`./lib` -> `./lib.js`); so is every path-like run of
//!   characters anywhere in the line (`python3 -c "exec(open('x.py').read())"`), and what the
//!   commands inside `$(…)` and backquotes name. The host keeps the candidates that are files
//!   in the project;
//! - a word Paddock cannot spell out before it runs (another variable, `$(…)`, a backquote,
//!   a glob, a brace expansion) that is a command, or that looks like a path, leaves what
//!   the hook runs unknown: [`CommandScripts::unexpanded`]. `~/x` stays as written: the
//!   host spells out the home folder.
//!
//! Pure: it reads no file.

use crate::hook::{Hook, Invocation};
use crate::spelling::{path_runs, spellings};

/// The variables a hook is given for the project folder.
pub const PROJECT_VARS: [&str; 2] = ["CLAUDE_PROJECT_DIR", "PADDOCK_PROJECT_DIR"];
/// Deepest nesting of `$(…)` read; deeper is unknown.
const MAX_NESTING: usize = 8;
/// Words after which the next word is still a command.
const PREFIXES: [&str; 14] = [
    "then", "do", "else", "elif", "if", "while", "until", "!", "exec", "command", "env", "nohup",
    "time", "builtin",
];

/// A path a hook's command names.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum ScriptPath {
    /// Under the project folder: written after `$CLAUDE_PROJECT_DIR`/`$PADDOCK_PROJECT_DIR`.
    Project(String),
    /// As written: absolute, or relative to the folder the hook runs in.
    AsWritten(String),
}

/// What a hook's command names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandScripts {
    /// Candidate paths, each spelling once.
    pub paths: Vec<ScriptPath>,
    /// The first word Paddock cannot spell out that is a command or looks like a path, as
    /// written: what the hook runs is then unknown.
    pub unexpanded: Option<String>,
    /// The command names the project folder: one of its variables, `$PWD`, or a relative
    /// path.
    pub names_project: bool,
}

impl CommandScripts {
    fn add(&mut self, path: ScriptPath) {
        if !self.paths.contains(&path) {
            self.paths.push(path);
        }
    }

    fn merge(&mut self, other: CommandScripts) {
        for p in other.paths {
            self.add(p);
        }
        if self.unexpanded.is_none() {
            self.unexpanded = other.unexpanded;
        }
        self.names_project |= other.names_project;
    }
}

impl Hook {
    /// The files this hook's command may run or read as its script (see the module).
    pub fn scripts(&self) -> CommandScripts {
        match self.invocation() {
            Invocation::Shell(line) => scan_line(line, 0),
            // No shell: every word is literal.
            Invocation::Program { program, args } => {
                let mut out = CommandScripts::default();
                for word in std::iter::once(program).chain(args.iter().map(String::as_str)) {
                    literal_word(word, &mut out);
                }
                out
            }
        }
    }
}

/// A word the shell leaves as it is: a candidate, and the part after each `=`.
fn literal_word(text: &str, out: &mut CommandScripts) {
    if text.is_empty() {
        return;
    }
    out.names_project |= relative_path(text);
    for s in spellings(text) {
        out.add(ScriptPath::AsWritten(s));
    }
    for (at, _) in text.match_indices('=') {
        let value = &text[at + 1..];
        if !value.is_empty() {
            out.names_project |= relative_path(value);
            for s in spellings(value) {
                out.add(ScriptPath::AsWritten(s));
            }
        }
    }
}

/// Looks like a path relative to the folder the hook runs in (which is in the project). A
/// bare `.name` is not counted: jq's `.tool_input.file_path` is one.
fn relative_path(text: &str) -> bool {
    text.contains('/') && !text.starts_with('/') && !text.starts_with('~')
}

/// One word as the lexer builds it.
#[derive(Debug, Default)]
struct Word {
    /// The literal text (a project variable at its start left out).
    text: String,
    /// The word began with a project variable: `text` is under the project.
    starts_project: bool,
    /// A project variable or `$PWD` somewhere else in the word.
    project_inside: bool,
    /// Something not spelled out (a variable, `$(…)`, a brace expansion...).
    unexpanded: bool,
    /// An unquoted `*`, `?` or `[` (the test command `[` is not a glob).
    glob: bool,
    /// The word is in a command's place.
    command: bool,
    /// Where it starts in the line (characters).
    start: usize,
}

struct Lexer<'a> {
    chars: Vec<char>,
    at: usize,
    depth: usize,
    word: Option<Word>,
    command_next: bool,
    out: CommandScripts,
    line: &'a str,
}

/// Reads one command line (`depth`: how deep in `$(…)` it is).
fn scan_line(line: &str, depth: usize) -> CommandScripts {
    let mut lexer = Lexer {
        chars: line.chars().collect(),
        at: 0,
        depth,
        word: None,
        command_next: true,
        out: CommandScripts::default(),
        line,
    };
    lexer.run();
    let mut out = lexer.out;
    // Inline code: `python3 -c "exec(open('x.py').read())"`.
    for run in path_runs(line) {
        for s in spellings(&run) {
            out.add(ScriptPath::AsWritten(s));
        }
    }
    out
}

impl Lexer<'_> {
    fn run(&mut self) {
        while let Some(&c) = self.chars.get(self.at) {
            match c {
                ' ' | '\t' => self.end_word(false),
                '\n' | ';' | '&' | '|' | '(' | ')' => self.end_word(true),
                '<' | '>' => {
                    // `2>&1`: the `&` is the redirection's, not a separator.
                    if self.chars.get(self.at + 1) == Some(&'&') {
                        self.at += 1;
                    }
                    self.end_word(false);
                }
                '#' if self.word.is_none() => self.skip_comment(),
                '\\' => {
                    self.at += 1;
                    if let Some(&next) = self.chars.get(self.at) {
                        self.push(next);
                    }
                    self.at += 1;
                }
                '\'' => self.single_quoted(),
                '"' => self.double_quoted(),
                '$' => self.dollar(),
                '`' => self.backquoted(),
                '*' | '?' | '[' => {
                    self.word().glob = true;
                    self.push(c);
                    self.at += 1;
                }
                // Brace expansion (`x{a,b}`); a lone `{` starts a group.
                '{' if self
                    .chars
                    .get(self.at + 1)
                    .is_some_and(|n| !n.is_whitespace()) =>
                {
                    self.mark_unexpanded();
                    self.push(c);
                    self.at += 1;
                }
                _ => {
                    self.push(c);
                    self.at += 1;
                }
            }
        }
        self.finish();
    }

    fn word(&mut self) -> &mut Word {
        let (start, command) = (self.at, self.command_next);
        self.word.get_or_insert_with(|| Word {
            start,
            command,
            ..Word::default()
        })
    }

    fn push(&mut self, c: char) {
        self.word().text.push(c);
    }

    fn mark_unexpanded(&mut self) {
        self.word().unexpanded = true;
    }

    /// A project variable: the project folder itself.
    fn project_var(&mut self) {
        self.out.names_project = true;
        let w = self.word();
        if w.text.is_empty() && !w.unexpanded && !w.starts_project {
            w.starts_project = true;
        } else {
            w.project_inside = true;
        }
    }

    /// Ends the word at a blank (`separator`: or at `;`, `|`, `&`, a parenthesis, a
    /// newline, after which a command comes).
    fn end_word(&mut self, separator: bool) {
        self.finish();
        if separator {
            self.command_next = true;
        }
        self.at += 1;
    }

    fn finish(&mut self) {
        let Some(mut w) = self.word.take() else {
            return;
        };
        w.unexpanded |= w.glob && !matches!(w.text.as_str(), "[" | "[[");
        let end = self.at.min(self.chars.len());
        let raw: String = self.chars[w.start.min(end)..end].iter().collect();
        let assignment = w.command && is_assignment(&w.text);
        self.command_next = assignment || (w.command && PREFIXES.contains(&w.text.as_str()));
        if w.unexpanded || w.project_inside {
            let pathlike = w.starts_project
                || w.project_inside
                || w.text.contains('/')
                || w.text.starts_with('.');
            if (pathlike || (w.command && !assignment)) && self.out.unexpanded.is_none() {
                self.out.unexpanded = Some(raw);
            }
            return;
        }
        if w.starts_project {
            let rel = w.text.trim_start_matches('/');
            if !rel.is_empty() {
                for s in spellings_under_project(rel) {
                    self.out.add(ScriptPath::Project(s));
                }
            }
            return;
        }
        literal_word(&w.text, &mut self.out);
    }

    fn skip_comment(&mut self) {
        while self.chars.get(self.at).is_some_and(|c| *c != '\n') {
            self.at += 1;
        }
    }

    fn single_quoted(&mut self) {
        self.word();
        self.at += 1;
        while let Some(&c) = self.chars.get(self.at) {
            self.at += 1;
            if c == '\'' {
                return;
            }
            self.push(c);
        }
    }

    fn double_quoted(&mut self) {
        self.word();
        self.at += 1;
        while let Some(&c) = self.chars.get(self.at) {
            match c {
                '"' => {
                    self.at += 1;
                    return;
                }
                '\\' => {
                    let next = self.chars.get(self.at + 1).copied();
                    match next {
                        Some(n @ ('$' | '`' | '"' | '\\')) => {
                            self.push(n);
                            self.at += 2;
                        }
                        Some('\n') => self.at += 2,
                        _ => {
                            self.push('\\');
                            self.at += 1;
                        }
                    }
                }
                '$' => self.dollar(),
                '`' => self.backquoted(),
                _ => {
                    self.push(c);
                    self.at += 1;
                }
            }
        }
    }

    /// `$NAME`, `${…}`, `$(…)`, `$((…))`, `$1`...; a lone `$` is itself.
    fn dollar(&mut self) {
        match self.chars.get(self.at + 1).copied() {
            Some('{') => {
                let start = self.at + 2;
                let end = self.closing(start, '{', '}');
                let inner: String = self.chars[start..end.min(self.chars.len())]
                    .iter()
                    .collect();
                self.at = end + 1;
                self.variable(&inner);
            }
            Some('(') => {
                let start = self.at + 2;
                let end = self.closing(start, '(', ')');
                let inner: String = self.chars[start..end.min(self.chars.len())]
                    .iter()
                    .collect();
                self.at = end + 1;
                self.mark_unexpanded();
                // `$((…))` is arithmetic; `$(…)` is a command of its own.
                if !inner.starts_with('(') {
                    self.nested(&inner);
                }
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                let start = self.at + 1;
                let mut end = start;
                while self
                    .chars
                    .get(end)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
                {
                    end += 1;
                }
                let name: String = self.chars[start..end].iter().collect();
                self.at = end;
                self.variable(&name);
            }
            Some(c) if c.is_ascii_digit() || "@*#?$!-".contains(c) => {
                self.mark_unexpanded();
                self.at += 2;
            }
            _ => {
                self.push('$');
                self.at += 1;
            }
        }
    }

    /// A variable by what is between `${` and `}` (or after `$`).
    fn variable(&mut self, inner: &str) {
        let name_end = inner
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(inner.len());
        let (name, rest) = inner.split_at(name_end);
        if PROJECT_VARS.contains(&name) {
            self.project_var();
            if !rest.is_empty() {
                // `${CLAUDE_PROJECT_DIR:-…}`: not the plain folder.
                self.mark_unexpanded();
            }
        } else if name == "PWD" {
            // The folder the hook runs in, which is in the project.
            self.out.names_project = true;
            self.word().project_inside = true;
        } else {
            self.mark_unexpanded();
        }
    }

    fn backquoted(&mut self) {
        let start = self.at + 1;
        let mut end = start;
        while let Some(&c) = self.chars.get(end) {
            if c == '`' {
                break;
            }
            end += if c == '\\' { 2 } else { 1 };
        }
        let end = end.min(self.chars.len());
        let inner: String = self.chars[start..end].iter().collect();
        self.at = end + 1;
        self.mark_unexpanded();
        self.nested(&inner);
    }

    /// A command inside this one: what it names counts as this line's.
    fn nested(&mut self, inner: &str) {
        if self.depth >= MAX_NESTING {
            if self.out.unexpanded.is_none() {
                self.out.unexpanded = Some(self.line.to_owned());
            }
            return;
        }
        let found = scan_line(inner, self.depth + 1);
        if found.names_project {
            // Its output comes from the project (`sh "$(ls .claude/hooks | head -1)"`).
            self.word().project_inside = true;
        }
        self.out.merge(found);
    }

    /// Where the bracket opened before `from` closes (quotes skipped): its index, or the
    /// line's end.
    fn closing(&self, from: usize, open: char, close: char) -> usize {
        let mut depth = 1usize;
        let mut at = from;
        let mut quote: Option<char> = None;
        while let Some(&c) = self.chars.get(at) {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), '\\') => at += 1,
                (Some(_), _) => {}
                (None, '\'' | '"') => quote = Some(c),
                (None, '\\') => at += 1,
                (None, c) if c == open => depth += 1,
                (None, c) if c == close => {
                    depth -= 1;
                    if depth == 0 {
                        return at;
                    }
                }
                _ => {}
            }
            at += 1;
        }
        self.chars.len()
    }
}

/// `NAME=value` in a command's place: a variable for the command, not the command.
fn is_assignment(text: &str) -> bool {
    match text.split_once('=') {
        Some((name, _)) => {
            name.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

/// A path under the project folder and the spellings an interpreter also tries (a name
/// without an extension there is always a path, slash or not).
fn spellings_under_project(rel: &str) -> Vec<String> {
    let mut out = spellings(rel);
    if !rel.contains('/') {
        out.extend(
            spellings(&format!("./{rel}"))
                .into_iter()
                .skip(1)
                .map(|s| s.trim_start_matches("./").to_owned()),
        );
    }
    out
}
