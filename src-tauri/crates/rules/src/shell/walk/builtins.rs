//! What changes how bash reads or runs the commands after it: assignments to the variables
//! bash itself reads (whichever builtin makes them), `set` and `shopt` options, and the
//! options a shell is started with. Each asks, since the rules judge later words as bash
//! reads them by default.

use std::fmt::Display;

use super::super::lists::{
    BASH_LIKE, SAFE_SET_OPTIONS, SAFE_SHELL_LONG, SAFE_SHOPT, SET_LETTERS, STARTUP_FLAGS,
    UNKNOWN_OPTION, is_dangerous_assignment, option_effect,
};
use super::super::{ConcernKind, Word};
use super::Walker;

const NAMEREF: &str =
    "makes a name whose assignments set another variable, which may be one bash reads";
const EMPTY_ENV: &str = "empties the environment: a bash started without PATH looks for \
     commands in the current folder too";

/// How a builtin that assigns variables reads its arguments, as bash's option parser does:
/// letters cluster, a value is attached or the next word, options end at `--` or the first
/// operand.
struct Assigner {
    name: &'static str,
    /// Option letters that take a value.
    value_opts: &'static str,
    /// Of those, the ones whose value names a variable the builtin assigns (`read -a NAME`).
    name_opts: &'static str,
    operands: Operands,
    /// The declare family: `+x` options too, `-p` only prints, `-n` makes a name reference,
    /// `-i` evaluates values as arithmetic.
    declares: bool,
}

/// Which operands name variables.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Operands {
    All,
    /// `getopts OPTSTRING NAME [ARGS]`.
    Second,
    None,
}

const fn assigner(name: &'static str) -> Assigner {
    Assigner {
        name,
        value_opts: "",
        name_opts: "",
        operands: Operands::All,
        declares: false,
    }
}

/// `let` assigns too, but every `let` is arithmetic on names and asks as such; `unset` is
/// here because an unset PATH makes bash look for commands in the current folder.
const ASSIGNERS: [Assigner; 13] = [
    Assigner {
        declares: true,
        ..assigner("declare")
    },
    Assigner {
        declares: true,
        ..assigner("typeset")
    },
    Assigner {
        declares: true,
        ..assigner("local")
    },
    assigner("export"),
    assigner("readonly"),
    assigner("unset"),
    Assigner {
        value_opts: "adinNptu",
        name_opts: "a",
        ..assigner("read")
    },
    Assigner {
        value_opts: "dnOsuCc",
        ..assigner("mapfile")
    },
    Assigner {
        value_opts: "dnOsuCc",
        ..assigner("readarray")
    },
    Assigner {
        operands: Operands::Second,
        ..assigner("getopts")
    },
    Assigner {
        value_opts: "v",
        name_opts: "v",
        operands: Operands::None,
        ..assigner("printf")
    },
    Assigner {
        value_opts: "p",
        name_opts: "p",
        operands: Operands::None,
        ..assigner("wait")
    },
    Assigner {
        operands: Operands::None,
        ..assigner("let")
    },
];

/// The variable an argument of an assigning builtin names.
enum Target<'a> {
    /// A name, with the value assigned when it is known.
    Name(&'a str, Option<&'a str>),
    /// Only known when it runs.
    Unknown,
    /// Not a name bash accepts (the builtin fails).
    Invalid,
}

pub(crate) fn is_name(s: &str) -> bool {
    let mut bytes = s.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// `NAME`, `NAME=value`, `NAME+=value`, `NAME[sub]=value`: the name, and the value when the
/// word is literal and replaces the variable's value.
fn target(word: &Word) -> Target<'_> {
    match word {
        Word::Literal(s) => {
            let (left, value) = match s.split_once('=') {
                Some((l, v)) => (l, Some(v)),
                None => (s.as_str(), None),
            };
            let (left, value) = match left.strip_suffix('+') {
                Some(l) if value.is_some() => (l, None),
                _ => (left, value),
            };
            let name = left.split_once('[').map_or(left, |(n, _)| n);
            if is_name(name) {
                Target::Name(name, value)
            } else {
                Target::Invalid
            }
        }
        // The name must be written plainly before `=`, `+=` or `[` to be known.
        Word::One(raw) | Word::Many { raw, .. } => {
            let end = raw
                .bytes()
                .position(|b| !(b.is_ascii_alphanumeric() || b == b'_'))
                .unwrap_or(raw.len());
            let (name, rest) = raw.split_at(end);
            let assigns = rest.starts_with('=') || rest.starts_with("+=") || rest.starts_with('[');
            if is_name(name) && assigns {
                Target::Name(name, None)
            } else {
                Target::Unknown
            }
        }
    }
}

impl Walker {
    fn shell_state(&mut self, what: String, effect: &'static str, ctx: &dyn Display) {
        self.concern(ConcernKind::ShellState { what, effect }, ctx);
    }

    /// A builtin that assigns the variables it names: each one bash reads asks, and so does
    /// a name only known when it runs.
    pub(crate) fn assigning_builtin(&mut self, name: &str, words: &[Word], ctx: &dyn Display) {
        let Some(spec) = ASSIGNERS.iter().find(|a| a.name == name) else {
            return;
        };
        let mut flags = String::new();
        let mut targets: Vec<Word> = Vec::new();
        let mut operand = 0;
        let mut options = true;
        let mut i = 1;
        while let Some(w) = words.get(i) {
            i += 1;
            if options {
                match w.literal() {
                    Some("--") => {
                        options = false;
                        continue;
                    }
                    Some(opt)
                        if opt.len() > 1
                            && (opt.starts_with('-')
                                || (spec.declares && opt.starts_with('+'))) =>
                    {
                        let plus = opt.starts_with('+');
                        let cluster = &opt[1..];
                        for (at, c) in cluster.char_indices() {
                            if spec.value_opts.contains(c) {
                                let rest = &cluster[at + c.len_utf8()..];
                                let value = if rest.is_empty() {
                                    i += 1;
                                    words.get(i - 1).cloned()
                                } else {
                                    Some(Word::Literal(rest.to_owned()))
                                };
                                if spec.name_opts.contains(c) {
                                    targets.extend(value);
                                }
                                break;
                            }
                            if !plus {
                                flags.push(c);
                            }
                        }
                        continue;
                    }
                    Some(_) => options = false,
                    // It may be any option (`printf "$opt" x` with `-vPATH`) or name.
                    None => {
                        options = false;
                        targets.push(w.clone());
                        operand += 1;
                        continue;
                    }
                }
            }
            let names = match spec.operands {
                Operands::All => true,
                Operands::Second => operand == 1,
                Operands::None => false,
            };
            if names {
                targets.push(w.clone());
            }
            operand += 1;
        }
        // `declare -p` only prints; `unset -f` removes functions, leaving the commands the
        // rules judged.
        if (spec.declares && flags.contains('p')) || (name == "unset" && flags.contains('f')) {
            return;
        }
        if spec.declares && flags.contains('n') {
            self.shell_state(format!("{name} -n"), NAMEREF, ctx);
        }
        if name == "let" || (spec.declares && flags.contains('i')) {
            self.concern(ConcernKind::Arithmetic, ctx);
        }
        for word in &targets {
            match target(word) {
                Target::Name(var, value) if is_dangerous_assignment(var, value) => {
                    self.concern(ConcernKind::Environment(var.to_owned()), ctx);
                }
                Target::Unknown => {
                    self.concern(ConcernKind::UnknownVariable(word.display()), ctx);
                }
                Target::Name(..) | Target::Invalid => {}
            }
        }
    }

    /// `env -u NAME` unsets a variable as `unset` does; `env -i` unsets PATH among the rest.
    pub(crate) fn env_unsets(&mut self, options: &[(String, Option<String>)], ctx: &dyn Display) {
        for (opt, value) in options {
            match (opt.as_str(), value) {
                ("-u" | "--unset", Some(var)) if !is_name(var) => {
                    self.concern(ConcernKind::UnknownVariable(var.clone()), ctx);
                }
                ("-u" | "--unset", Some(var)) if is_dangerous_assignment(var, None) => {
                    self.concern(ConcernKind::Environment(var.clone()), ctx);
                }
                ("-i" | "--ignore-environment", _) => {
                    self.shell_state(format!("env {opt}"), EMPTY_ENV, ctx);
                }
                _ => {}
            }
        }
    }

    /// `set`: an option that changes how later commands read or run asks; positional
    /// parameters (after `--` or the first operand) change nothing.
    pub(crate) fn set_builtin(&mut self, words: &[Word], ctx: &dyn Display) {
        let mut i = 1;
        while let Some(w) = words.get(i) {
            i += 1;
            let Some(arg) = w.literal() else {
                self.shell_state(format!("set {}", w.display()), UNKNOWN_OPTION, ctx);
                return;
            };
            let Some(cluster) = arg
                .strip_prefix(['-', '+'])
                .filter(|c| !c.is_empty() && *c != "-")
            else {
                return;
            };
            let prefix = format!("set {}", &arg[..1]);
            for c in cluster.chars() {
                if c == 'o' {
                    // `set -o` alone lists the options.
                    let Some(next) = words.get(i) else { return };
                    i += 1;
                    self.set_option(&format!("{prefix}o"), next, &SAFE_SET_OPTIONS, ctx);
                } else {
                    self.set_letter(&prefix, c, ctx);
                }
            }
        }
    }

    fn set_letter(&mut self, prefix: &str, letter: char, ctx: &dyn Display) {
        let long = SET_LETTERS
            .iter()
            .find(|(l, _)| *l == letter)
            .map(|(_, n)| *n);
        if long.is_none_or(|n| !SAFE_SET_OPTIONS.contains(&n)) {
            let effect = long.map_or(UNKNOWN_OPTION, option_effect);
            self.shell_state(format!("{prefix}{letter}"), effect, ctx);
        }
    }

    fn set_option(&mut self, prefix: &str, word: &Word, safe: &[&str], ctx: &dyn Display) {
        match word.literal() {
            Some(name) if safe.contains(&name) => {}
            Some(name) => self.shell_state(format!("{prefix} {name}"), option_effect(name), ctx),
            None => {
                let what = format!("{prefix} {}", word.display());
                self.shell_state(what, UNKNOWN_OPTION, ctx);
            }
        }
    }

    /// `shopt -s`/`-u`: each option named asks unless it is known to change nothing the
    /// rules rely on (either way round: turning some off changes reading too).
    pub(crate) fn shopt_builtin(&mut self, words: &[Word], ctx: &dyn Display) {
        let mut changes = false;
        let mut set_names = false;
        let mut written = String::from("shopt");
        let mut i = 1;
        while let Some(w) = words.get(i) {
            match w.literal() {
                Some("--") => {
                    i += 1;
                    break;
                }
                Some(opt) if opt.len() > 1 && opt.starts_with('-') => {
                    changes |= opt.contains(['s', 'u']);
                    set_names |= opt.contains('o');
                    written.push(' ');
                    written.push_str(opt);
                    i += 1;
                }
                Some(_) => break,
                None => {
                    self.shell_state(format!("shopt {}", w.display()), UNKNOWN_OPTION, ctx);
                    return;
                }
            }
        }
        // `shopt`, `shopt -p`, `shopt -q NAME` only read the options.
        if !changes {
            return;
        }
        let safe: &[&str] = if set_names {
            &SAFE_SET_OPTIONS
        } else {
            &SAFE_SHOPT
        };
        for w in words.get(i..).unwrap_or_default() {
            self.set_option(&written, w, safe, ctx);
        }
    }

    /// Reads a shell's options up to its operand: whether it has `-c`, and the operand's
    /// index. Startup files (`-i`, `-l`, `--rcfile`…) ask for any shell; bash's and sh's
    /// `set` and `shopt` options are judged as those builtins judge them. As in bash, each
    /// `o` or `O` in a cluster takes the next word (`-eo pipefail`).
    pub(crate) fn shell_flags(
        &mut self,
        name: &str,
        words: &[Word],
        ctx: &dyn Display,
    ) -> (bool, usize) {
        let bash_like = BASH_LIKE.contains(&name);
        let mut has_c = false;
        let mut i = 1;
        while let Some(Some(w)) = words.get(i).map(Word::literal) {
            i += 1;
            if w == "--" || w == "-" {
                break;
            }
            if w.starts_with("--") {
                if let Some((flag, effect)) = STARTUP_FLAGS.iter().find(|(f, _)| *f == w) {
                    self.shell_state(format!("{name} {flag}"), effect, ctx);
                } else if bash_like && !SAFE_SHELL_LONG.contains(&w) {
                    self.shell_state(format!("{name} {w}"), UNKNOWN_OPTION, ctx);
                }
                if matches!(w, "--rcfile" | "--init-file") {
                    i += 1;
                }
                continue;
            }
            let Some(flags) = w
                .strip_prefix(['-', '+'])
                .filter(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_alphabetic()))
            else {
                i -= 1;
                break;
            };
            let sign = &w[..1];
            has_c |= sign == "-" && flags.contains('c');
            for c in flags.chars() {
                match c {
                    'o' | 'O' => {
                        let next = words.get(i);
                        i += 1;
                        let safe: &[&str] = if c == 'o' {
                            &SAFE_SET_OPTIONS
                        } else {
                            &SAFE_SHOPT
                        };
                        if let (true, Some(next)) = (bash_like, next) {
                            self.set_option(&format!("{name} {sign}{c}"), next, safe, ctx);
                        }
                    }
                    'i' | 'l' if sign == "-" => {
                        let flag = format!("-{c}");
                        if let Some((_, effect)) = STARTUP_FLAGS.iter().find(|(f, _)| *f == flag) {
                            self.shell_state(format!("{name} {flag}"), effect, ctx);
                        }
                    }
                    // The command string, stdin, restricted, dump strings (no run).
                    'c' | 's' | 'r' | 'D' | 'i' | 'l' => {}
                    c if bash_like => self.set_letter(&format!("{name} {sign}"), c, ctx),
                    _ => {}
                }
            }
        }
        (has_c, i)
    }
}
