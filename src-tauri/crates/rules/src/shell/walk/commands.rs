//! What a simple command runs: wrappers unwrapped (`timeout 5 cargo test` is `timeout` and
//! `cargo test`), `sh -c '…'` parsed, builtins that run text, interpreters fed a program
//! on stdin, variables that change what runs, and `cd` for the redirections after it.

use std::fmt::Display;

use super::super::lists::{
    BASH_LIKE, INLINE_CODE, OTHER_SHELLS, RENAMES, RUNS_TEXT, RUNS_TEXT_WITH, command_name,
    is_dangerous_assignment, is_interpreter,
};
use super::super::wrappers::{Spec, WRAPPERS, exec_command_at, unwrap, xargs_inner};
use super::super::{ConcernKind, Role, Word};
use super::{Cwd, Stdin, Walker};
use crate::error::ParseError;

/// The literal text of each word (`None` for dynamic words).
fn lits(words: &[Word]) -> Vec<Option<&str>> {
    words.iter().map(Word::literal).collect()
}

impl Walker {
    /// Judges one simple command's words: adds its parts (wrappers and what they wrap) and
    /// its concerns.
    pub(crate) fn command(
        &mut self,
        mut words: Vec<Word>,
        ctx: &dyn Display,
        stdin: Stdin,
    ) -> Result<(), ParseError> {
        let role = Role::Command;
        loop {
            let Some(first) = words.first() else {
                return Ok(());
            };
            let Some(first) = first.literal() else {
                self.concern(ConcernKind::DynamicName, ctx);
                self.push_part(words, role)?;
                return Ok(());
            };
            let Some(name) = command_name(first).map(str::to_owned) else {
                self.push_part(words, role)?;
                return Ok(());
            };
            if let Some(spec) = WRAPPERS.iter().find(|s| s.name == name) {
                match self.wrapper(spec, words, role, ctx)? {
                    Some(inner) => words = inner,
                    None => return Ok(()),
                }
                continue;
            }
            return self.program_words(&name, words, role, ctx, stdin);
        }
    }

    /// Adds the wrapper's part and returns the words it runs (`None`: it runs nothing more).
    fn wrapper(
        &mut self,
        spec: &Spec,
        words: Vec<Word>,
        role: Role,
        ctx: &dyn Display,
    ) -> Result<Option<Vec<Word>>, ParseError> {
        let unwrapped = match unwrap(spec, &words) {
            Ok(u) => u,
            Err(opt) => {
                self.concern(
                    ConcernKind::WrapperOption(format!("{} {opt}", spec.name)),
                    ctx,
                );
                self.push_part(words, role)?;
                return Ok(None);
            }
        };
        for a in &unwrapped.assignments {
            let (name, value) = a.split_once('=').unwrap_or((a.as_str(), ""));
            if is_dangerous_assignment(name, Some(value)) {
                self.concern(ConcernKind::Environment(name.to_owned()), ctx);
            }
        }
        if spec.name == "env" {
            self.env_unsets(&unwrapped.options, ctx);
        }
        let said = |list: &[&str]| {
            unwrapped
                .options
                .iter()
                .any(|(o, _)| list.contains(&o.as_str()))
        };
        if let Some((opt, _)) = unwrapped
            .options
            .iter()
            .find(|(o, _)| spec.shell.contains(&o.as_str()))
        {
            self.concern(ConcernKind::Resplit(format!("{} {opt}", spec.name)), ctx);
            self.push_part(words, role)?;
            return Ok(None);
        }
        if said(spec.no_command) || (unwrapped.at >= words.len() && spec.name != "xargs") {
            self.push_part(words, role)?;
            return Ok(None);
        }
        let mut inner: Vec<Word> = words.get(unwrapped.at..).unwrap_or_default().to_vec();
        if spec.name == "xargs" {
            inner = xargs_inner(inner, &unwrapped.options);
        }
        let wrapper_role = match role {
            Role::Probe => Role::Probe,
            _ if spec.needs_allow => Role::Command,
            _ => Role::Wrapper,
        };
        self.push_part(words, wrapper_role)?;
        Ok(Some(inner))
    }

    /// A command that is not a wrapper: shells, interpreters, builtins that run text, `cd`.
    fn program_words(
        &mut self,
        name: &str,
        words: Vec<Word>,
        role: Role,
        ctx: &dyn Display,
        stdin: Stdin,
    ) -> Result<(), ParseError> {
        let args = lits(&words[1..]);
        let has = |opts: &[&str]| args.iter().any(|a| a.is_some_and(|a| opts.contains(&a)));
        if BASH_LIKE.contains(&name) || OTHER_SHELLS.contains(&name) {
            return self.shell(name, words, role, ctx, stdin);
        }
        // A here-doc or here-string is the program for an interpreter without a script, and
        // data for one with a script; both hide text a rule cannot see, so both ask. A pipe
        // only asks when the interpreter reads its program from it.
        if is_interpreter(name) {
            let inline = has(&INLINE_CODE);
            let operand = args
                .iter()
                .find(|a| a.is_none_or(|a| !a.starts_with('-') || a == "-"));
            let from_stdin = !inline && operand.is_none_or(|a| a == &Some("-"));
            if stdin.doc || (stdin.piped && from_stdin) {
                let kind = ConcernKind::InterpreterStdin {
                    name: name.to_owned(),
                    pipe: !stdin.doc,
                };
                self.concern(kind, ctx);
            }
        }
        if RUNS_TEXT.contains(&name) {
            self.concern(ConcernKind::RunsText(name.to_owned()), ctx);
        }
        if let Some((_, opts)) = RUNS_TEXT_WITH.iter().find(|(n, _)| *n == name)
            && args
                .iter()
                .flatten()
                .any(|a| opts.iter().any(|o| a.starts_with(o)))
        {
            self.concern(ConcernKind::RunsText(name.to_owned()), ctx);
        }
        if RENAMES.contains(&name) {
            let effect = "changes what a later command name runs";
            let what = name.to_owned();
            self.concern(ConcernKind::ShellState { what, effect }, ctx);
        }
        self.assigning_builtin(name, &words, ctx);
        match name {
            "eval" => return self.eval(words, role, ctx),
            "trap" => {
                let body = args
                    .iter()
                    .flatten()
                    .find(|a| !a.starts_with('-'))
                    .map(|s| (*s).to_owned());
                self.push_part(words, role)?;
                if let Some(body) = body {
                    self.probe_text(&body, ctx)?;
                }
                return Ok(());
            }
            "exec" => {
                // `exec cmd` replaces the shell with cmd: judge cmd too.
                let at = exec_command_at(&words);
                if at < words.len() {
                    let inner = words[at..].to_vec();
                    self.push_part(words, Role::Wrapper)?;
                    return self.command(
                        inner,
                        ctx,
                        Stdin {
                            doc: false,
                            piped: false,
                        },
                    );
                }
            }
            "cd" | "pushd" | "popd" => self.change_dir(name, &args),
            "set" => self.set_builtin(&words, ctx),
            "shopt" => self.shopt_builtin(&words, ctx),
            "find" => return self.find(words, role, ctx),
            "git" => return self.git(words, role, ctx),
            _ => {}
        }
        self.push_part(words, role)?;
        Ok(())
    }

    fn shell(
        &mut self,
        name: &str,
        words: Vec<Word>,
        role: Role,
        ctx: &dyn Display,
        stdin: Stdin,
    ) -> Result<(), ParseError> {
        let (has_c, i) = self.shell_flags(name, &words, ctx);
        let operand = words.get(i);
        if has_c {
            match operand {
                Some(Word::Literal(script)) if BASH_LIKE.contains(&name) => {
                    let script = script.clone();
                    self.push_part(words, Role::Wrapper)?;
                    return self.nested(&script, &script);
                }
                Some(Word::Literal(_)) => {
                    let why = format!("runs under {name}, whose syntax is not read here");
                    self.concern(ConcernKind::Unparsed(why), ctx);
                }
                Some(_) => self.concern(ConcernKind::ShellString(format!("{name} -c")), ctx),
                None => {}
            }
        } else if stdin.doc || (operand.is_none() && stdin.piped) {
            let kind = ConcernKind::InterpreterStdin {
                name: name.to_owned(),
                pipe: !stdin.doc,
            };
            self.concern(kind, ctx);
        }
        self.push_part(words, role)?;
        Ok(())
    }

    /// `eval` with literal arguments runs their text: parse it so deny rules see it.
    fn eval(&mut self, words: Vec<Word>, role: Role, ctx: &dyn Display) -> Result<(), ParseError> {
        let text: Option<Vec<&str>> = words[1..].iter().map(Word::literal).collect();
        let text = text.map(|t| t.join(" "));
        self.push_part(words, role)?;
        if let Some(text) = text {
            self.probe_text(&text, ctx)?;
        }
        Ok(())
    }

    /// Parses text that runs under a construct that already asks, for deny and ask rules.
    fn probe_text(&mut self, text: &str, ctx: &dyn Display) -> Result<(), ParseError> {
        self.probe += 1;
        let result = self.nested(text, ctx);
        self.probe -= 1;
        result
    }

    /// git with an argument that runs a program it names asks, unless the part's allow rule
    /// names that very word (`git rebase -x *`).
    fn git(&mut self, words: Vec<Word>, role: Role, ctx: &dyn Display) -> Result<(), ParseError> {
        let args = lits(&words[1..]);
        let found = crate::git::program_argument(&args).map(|found| ConcernKind::GitProgram {
            word: found.word,
            why: found.why,
        });
        let index = self.push_part(words, role)?;
        if let Some(kind) = found {
            self.lifted_concern(kind, ctx, index);
        }
        Ok(())
    }

    fn find(&mut self, words: Vec<Word>, role: Role, ctx: &dyn Display) -> Result<(), ParseError> {
        let mut inners: Vec<(String, Vec<Word>)> = Vec::new();
        let mut i = 1;
        while i < words.len() {
            let Some(action) = words[i]
                .literal()
                .filter(|w| matches!(*w, "-exec" | "-execdir" | "-ok" | "-okdir"))
                .map(str::to_owned)
            else {
                i += 1;
                continue;
            };
            let start = i + 1;
            let mut end = start;
            while end < words.len() {
                let w = words[end].literal();
                let plus_ends = w == Some("+") && words[end - 1].literal() == Some("{}");
                if w == Some(";") || plus_ends {
                    break;
                }
                end += 1;
            }
            let inner: Vec<Word> = words[start..end]
                .iter()
                .map(|w| match w {
                    Word::Literal(s) if s.contains("{}") => Word::One(s.clone()),
                    other => other.clone(),
                })
                .collect();
            if !inner.is_empty() {
                inners.push((action, inner));
            }
            i = end + 1;
        }
        let index = self.push_part(words, role)?;
        for (action, inner) in inners {
            self.lifted_concern(ConcernKind::FindExec(action), ctx, index);
            self.probe += 1;
            let result = self.command(
                inner,
                ctx,
                Stdin {
                    doc: false,
                    piped: false,
                },
            );
            self.probe -= 1;
            result?;
        }
        Ok(())
    }

    fn change_dir(&mut self, name: &str, args: &[Option<&str>]) {
        if self.in_body > 0 {
            self.cwd_unreliable = true;
        }
        // The first operand past the options (`-L`, `-P`, `-e`, `-@`); `-` is an operand.
        let target = args
            .iter()
            .copied()
            .find(|a| a.is_none_or(|a| !a.starts_with('-') || a == "-"));
        let next = match (name, target) {
            ("popd", _) | (_, None) | (_, Some(None)) => None,
            (_, Some(Some(dir))) if dir.starts_with(['/', '~', '-']) => None,
            (_, Some(Some(dir))) => match &self.cwd {
                Cwd::Known(cwd) => {
                    let mut cwd = cwd.clone();
                    push_relative(&mut cwd, dir).then_some(cwd)
                }
                Cwd::Unknown => None,
            },
        };
        self.cwd = next.map_or(Cwd::Unknown, Cwd::Known);
    }
}

/// Appends a relative path to a folder lexically; false when it climbs above the root.
pub(super) fn push_relative(dir: &mut Vec<String>, path: &str) -> bool {
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if dir.pop().is_none() {
                    return false;
                }
            }
            name => dir.push(name.to_owned()),
        }
    }
    true
}
