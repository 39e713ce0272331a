//! Walks brush-parser's syntax tree in source order, collecting every simple command (in
//! lists, pipelines, subshells, groups, compound commands, function bodies, substitutions)
//! and every construct that forces an Ask.

pub(crate) mod builtins;
pub(crate) mod commands;
pub(crate) mod redirects;
pub(crate) mod simple;

use std::fmt::Display;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;

use brush_parser::ParserOptions;
use brush_parser::ast::{
    self, AndOr, Assignment, AssignmentName, AssignmentValue, BinaryPredicate, Command,
    CommandPrefixOrSuffixItem as Item, CompoundCommand, CompoundList, ExtendedTestExpr, IoRedirect,
    Pipeline, SimpleCommand, UnaryPredicate,
};

use super::fast;
use super::lists::{is_dangerous_assignment, is_dangerous_env};
use super::source::{Node, SimpleNode, Src};
use super::words::{self, Analysis};
use super::{Concern, ConcernKind, MAX_PARTS, MAX_RECURSION, Parsed, Part, Role, Word, prescan};
use crate::error::ParseError;
use commands::push_relative;

/// Where the shell's working directory is, relative to the workspace root.
#[derive(Debug, Clone)]
pub(super) enum Cwd {
    Known(Vec<String>),
    Unknown,
}

pub(super) struct PendingRedirect {
    pub(super) target: String,
    pub(super) cwd: Cwd,
    pub(super) context: String,
}

pub(super) struct Walker {
    pub(super) opts: ParserOptions,
    /// The text being walked (the command, or a nested `$(…)` body or `sh -c` string).
    pub(super) source: Rc<str>,
    parts: Vec<Part>,
    concerns: Vec<Concern>,
    /// How many re-parses deep (`$(…)`, `sh -c`, `eval`).
    depth: usize,
    /// Above zero, parts are only checked against deny and ask rules.
    pub(super) probe: usize,
    pub(super) cwd: Cwd,
    /// Inside a loop or function body, where a `cd` moves later iterations or calls too.
    pub(super) in_body: usize,
    pub(super) cwd_unreliable: bool,
    pub(super) redirects: Vec<PendingRedirect>,
    /// Whether texts the fast reader can split skip the full grammar (off only to test that
    /// both read alike).
    fast: bool,
}

/// Parses and walks a whole command. Panics inside the parser (it has a few `unwrap`s on
/// numbers) become a syntax error: an Ask, never a crash.
pub(super) fn parse_top(cmd: &str, fast: bool) -> Result<Parsed, ParseError> {
    prescan::check(cmd)?;
    guarded(|| {
        let mut walker = Walker::new();
        walker.fast = fast;
        walker.source = Rc::from(cmd);
        if prescan::has_hidden_characters(cmd) {
            walker.concern(ConcernKind::ControlCharacter, &cmd);
        } else if let Some(commands) = walker.fast_split(cmd) {
            walker.simple_commands(cmd, commands)?;
            return Ok(walker.finish());
        }
        let program = parse_program(cmd, &walker.opts)?;
        walker.program(&program)?;
        Ok(walker.finish())
    })
}

/// Runs parser work, turning a panic into a syntax error. The prescan keeps out the panics
/// known today; this keeps out the ones found tomorrow (where panics unwind).
fn guarded<T>(work: impl FnOnce() -> Result<T, ParseError>) -> Result<T, ParseError> {
    match catch_unwind(AssertUnwindSafe(work)) {
        Ok(result) => result,
        Err(_) => Err(ParseError::Syntax("the parser failed on it".to_owned())),
    }
}

/// Parses with brush-parser, always on text that ends in a newline: brush-parser 0.4 loops
/// forever, allocating until the process aborts, when the text ends while it still waits for
/// the line after a here-document operator (`$(cat <<  `, `<<E$[`; its tracker's pull
/// request #1270). A final newline ends that wait and changes nothing bash reads. Text that
/// ends in an escaping backslash is left as it is: a newline would join it to nothing, and
/// brush-parser refuses an escape at the end before it looks at here-documents.
fn parse_program(text: &str, opts: &ParserOptions) -> Result<ast::Program, ParseError> {
    let ended;
    let backslashes = text.bytes().rev().take_while(|&b| b == b'\\').count();
    let text = if backslashes % 2 == 1 {
        text
    } else {
        ended = format!("{text}\n");
        &ended
    };
    let mut parser = brush_parser::Parser::new(std::io::Cursor::new(text.as_bytes()), opts);
    parser
        .parse_program()
        .map_err(|e| ParseError::Syntax(e.to_string()))
}

impl Walker {
    fn new() -> Self {
        Self {
            opts: words::options(),
            source: Rc::from(""),
            parts: Vec::new(),
            concerns: Vec::new(),
            depth: 0,
            probe: 0,
            cwd: Cwd::Known(Vec::new()),
            in_body: 0,
            cwd_unreliable: false,
            redirects: Vec::new(),
            fast: true,
        }
    }

    /// The fast reader's split of `text`, when it is on and can read it.
    fn fast_split<'a>(&self, text: &'a str) -> Option<Vec<fast::Simple<'a>>> {
        if self.fast { fast::split(text) } else { None }
    }

    fn finish(mut self) -> Parsed {
        for r in std::mem::take(&mut self.redirects) {
            let cwd = if self.cwd_unreliable {
                Cwd::Unknown
            } else {
                r.cwd
            };
            match cwd {
                Cwd::Unknown => self.concern(
                    ConcernKind::Redirect(format!("{} after a cd", r.target)),
                    &r.context,
                ),
                Cwd::Known(mut dir) => {
                    if !push_relative(&mut dir, &r.target) {
                        self.concern(
                            ConcernKind::Redirect(format!("{} outside the workspace", r.target)),
                            &r.context,
                        );
                    }
                }
            }
        }
        Parsed {
            parts: self.parts,
            concerns: self.concerns,
        }
    }

    pub(super) fn concern(&mut self, kind: ConcernKind, context: &dyn Display) {
        self.concerns.push(Concern {
            kind,
            context: context.to_string(),
            lift: None,
        });
    }

    pub(super) fn lifted_concern(&mut self, kind: ConcernKind, context: &dyn Display, part: usize) {
        self.concerns.push(Concern {
            kind,
            context: context.to_string(),
            lift: Some(part),
        });
    }

    /// Adds a part and returns its index.
    pub(super) fn push_part(&mut self, words: Vec<Word>, role: Role) -> Result<usize, ParseError> {
        if self.parts.len() >= MAX_PARTS {
            return Err(ParseError::TooManyParts { max: MAX_PARTS });
        }
        let role = if self.probe > 0 { Role::Probe } else { role };
        self.parts.push(Part { words, role });
        Ok(self.parts.len() - 1)
    }

    /// Parses text that runs as a command (`$(…)` body, `sh -c` string, `eval` arguments)
    /// and walks it as part of this command.
    pub(super) fn nested(&mut self, text: &str, context: &dyn Display) -> Result<(), ParseError> {
        if self.depth >= MAX_RECURSION {
            self.concern(ConcernKind::Unparsed("nests too deep".to_owned()), context);
            return Ok(());
        }
        if let Err(e) = prescan::check(text) {
            self.concern(ConcernKind::Unparsed(e.to_string()), context);
            return Ok(());
        }
        if let Some(commands) = self.fast_split(text) {
            self.depth += 1;
            let result = self.simple_commands(text, commands);
            self.depth -= 1;
            return result;
        }
        match parse_program(text, &self.opts) {
            Ok(program) => {
                self.depth += 1;
                let outer = std::mem::replace(&mut self.source, Rc::from(text));
                let result = self.program(&program);
                self.source = outer;
                self.depth -= 1;
                result
            }
            Err(e) => {
                self.concern(ConcernKind::Unparsed(e.to_string()), context);
                Ok(())
            }
        }
    }

    fn program(&mut self, program: &ast::Program) -> Result<(), ParseError> {
        for list in &program.complete_commands {
            self.list(list)?;
        }
        Ok(())
    }

    fn list(&mut self, list: &CompoundList) -> Result<(), ParseError> {
        for item in &list.0 {
            self.pipeline(&item.0.first)?;
            for next in &item.0.additional {
                match next {
                    AndOr::And(p) | AndOr::Or(p) => self.pipeline(p)?,
                }
            }
        }
        Ok(())
    }

    fn pipeline(&mut self, pipeline: &Pipeline) -> Result<(), ParseError> {
        for (i, cmd) in pipeline.seq.iter().enumerate() {
            self.command_node(cmd, i > 0)?;
        }
        Ok(())
    }

    fn command_node(&mut self, cmd: &Command, piped: bool) -> Result<(), ParseError> {
        let ctx = self.src(cmd);
        let ctx = &ctx;
        match cmd {
            Command::Simple(simple) => self.simple(simple, piped),
            Command::Compound(compound, redirects) => {
                // Redirections are set up before the body runs, in the current folder.
                for r in redirects.iter().flat_map(|l| l.0.iter()) {
                    self.redirect(r, ctx)?;
                }
                self.compound(compound)
            }
            Command::Function(def) => {
                self.in_body += 1;
                for r in def.body.1.iter().flat_map(|l| l.0.iter()) {
                    self.redirect(r, ctx)?;
                }
                let result = self.compound(&def.body.0);
                self.in_body -= 1;
                result
            }
            Command::ExtendedTest(test, redirects) => {
                for r in redirects.iter().flat_map(|l| l.0.iter()) {
                    self.redirect(r, ctx)?;
                }
                self.extended_test(&test.expr, ctx)
            }
        }
    }

    fn compound(&mut self, compound: &CompoundCommand) -> Result<(), ParseError> {
        let ctx = self.src(compound);
        let ctx = &ctx;
        match compound {
            CompoundCommand::Arithmetic(a) => {
                self.arithmetic(&a.expr.value, ctx);
                Ok(())
            }
            CompoundCommand::ArithmeticForClause(f) => {
                for e in [&f.initializer, &f.condition, &f.updater]
                    .into_iter()
                    .flatten()
                {
                    self.arithmetic(&e.value, ctx);
                }
                self.body(&f.body.list)
            }
            CompoundCommand::BraceGroup(g) => self.list(&g.list),
            CompoundCommand::Subshell(s) => self.subshell(&s.list),
            CompoundCommand::ForClause(f) => {
                if is_dangerous_env(&f.variable_name) {
                    self.concern(ConcernKind::Environment(f.variable_name.clone()), ctx);
                }
                for w in f.values.iter().flatten() {
                    self.word(&w.value, ctx)?;
                }
                self.body(&f.body.list)
            }
            CompoundCommand::CaseClause(c) => {
                self.word(&c.value.value, ctx)?;
                for item in &c.cases {
                    for p in &item.patterns {
                        self.word(&p.value, ctx)?;
                    }
                    if let Some(list) = &item.cmd {
                        self.list(list)?;
                    }
                }
                Ok(())
            }
            CompoundCommand::IfClause(c) => {
                self.list(&c.condition)?;
                self.list(&c.then)?;
                for e in c.elses.iter().flatten() {
                    if let Some(cond) = &e.condition {
                        self.list(cond)?;
                    }
                    self.list(&e.body)?;
                }
                Ok(())
            }
            CompoundCommand::WhileClause(w) | CompoundCommand::UntilClause(w) => {
                self.in_body += 1;
                let result = self.list(&w.0).and_then(|()| self.list(&w.1.list));
                self.in_body -= 1;
                result
            }
            CompoundCommand::Coprocess(c) => {
                // `coproc NAME …` assigns NAME (its descriptors) and NAME_PID.
                if let Some(name) = &c.name
                    && is_dangerous_env(&name.value)
                {
                    self.concern(ConcernKind::Environment(name.value.clone()), ctx);
                }
                self.command_node(&c.body, false)
            }
        }
    }

    fn body(&mut self, list: &CompoundList) -> Result<(), ParseError> {
        self.in_body += 1;
        let result = self.list(list);
        self.in_body -= 1;
        result
    }

    /// A subshell's `cd` does not move the shell that started it.
    pub(super) fn subshell(&mut self, list: &CompoundList) -> Result<(), ParseError> {
        let saved = self.cwd.clone();
        let result = self.list(list);
        self.cwd = saved;
        result
    }

    fn arithmetic(&mut self, expr: &str, context: &dyn Display) {
        let mut out = Analysis::default();
        words::arithmetic_concerns(expr, &mut out);
        for kind in out.concerns {
            self.concern(kind, context);
        }
    }

    fn extended_test(
        &mut self,
        expr: &ExtendedTestExpr,
        context: &dyn Display,
    ) -> Result<(), ParseError> {
        match expr {
            ExtendedTestExpr::And(a, b) | ExtendedTestExpr::Or(a, b) => {
                self.extended_test(a, context)?;
                self.extended_test(b, context)
            }
            ExtendedTestExpr::Not(e) | ExtendedTestExpr::Parenthesized(e) => {
                self.extended_test(e, context)
            }
            ExtendedTestExpr::UnaryTest(pred, w) => {
                let word = self.word(&w.value, context)?;
                // `-v a[i]` evaluates the subscript.
                let names_variable = matches!(
                    pred,
                    UnaryPredicate::ShellVariableIsSetAndAssigned
                        | UnaryPredicate::ShellVariableIsSetAndNameRef
                );
                if names_variable && word.literal().is_none_or(|s| s.contains('[')) {
                    self.concern(ConcernKind::Arithmetic, context);
                }
                Ok(())
            }
            ExtendedTestExpr::BinaryTest(pred, l, r) => {
                let left = self.word(&l.value, context)?;
                let right = self.word(&r.value, context)?;
                let arithmetic = matches!(
                    pred,
                    BinaryPredicate::ArithmeticEqualTo
                        | BinaryPredicate::ArithmeticNotEqualTo
                        | BinaryPredicate::ArithmeticLessThan
                        | BinaryPredicate::ArithmeticLessThanOrEqualTo
                        | BinaryPredicate::ArithmeticGreaterThan
                        | BinaryPredicate::ArithmeticGreaterThanOrEqualTo
                );
                let numeric = |w: &Word| w.literal().is_some_and(words::is_numeric_expression);
                if arithmetic && !(numeric(&left) && numeric(&right)) {
                    self.concern(ConcernKind::Arithmetic, context);
                }
                Ok(())
            }
        }
    }

    /// A syntax node as the user wrote it, for quoting in a `why` (found only if quoted).
    fn src<'a>(&self, node: &'a dyn Node) -> Src<'a> {
        Src {
            source: Rc::clone(&self.source),
            node,
        }
    }

    /// Reads one word, records what it hides, and walks the commands it substitutes.
    pub(super) fn word(&mut self, raw: &str, context: &dyn Display) -> Result<Word, ParseError> {
        let analysis = words::analyze(raw, &self.opts);
        self.take(analysis, context)
    }

    pub(super) fn take(
        &mut self,
        analysis: Analysis,
        context: &dyn Display,
    ) -> Result<Word, ParseError> {
        for kind in analysis.concerns {
            self.concern(kind, context);
        }
        for body in &analysis.bodies {
            // A substitution runs in a subshell: its `cd` stays there.
            let saved = self.cwd.clone();
            let result = self.nested(body, context);
            self.cwd = saved;
            result?;
        }
        Ok(analysis.word.unwrap_or_else(|| Word::One(String::new())))
    }

    fn simple(&mut self, cmd: &SimpleCommand, piped: bool) -> Result<(), ParseError> {
        let node = SimpleNode(cmd);
        let ctx = Src {
            source: Rc::clone(&self.source),
            node: &node,
        };
        let ctx = &ctx;
        let mut words = Vec::new();
        let mut assignments = Vec::new();
        let mut doc = false;
        let items = cmd.prefix.iter().flat_map(|p| p.0.iter());
        for item in items {
            match item {
                Item::AssignmentWord(a, _) => assignments.push(a),
                other => self.item(other, ctx, &mut words, &mut doc)?,
            }
        }
        if let Some(name) = &cmd.word_or_name {
            words.push(self.word(&name.value, ctx)?);
        }
        for item in cmd.suffix.iter().flat_map(|s| s.0.iter()) {
            self.item(item, ctx, &mut words, &mut doc)?;
        }
        for a in assignments {
            // Leading assignments set the command's environment, or the shell's when there
            // is no command; either way a listed name changes what runs.
            self.assignment(a, ctx)?;
        }
        for name in self.fd_variables(cmd) {
            if is_dangerous_env(&name) {
                self.concern(ConcernKind::Environment(name), ctx);
            }
        }
        if words.is_empty() {
            return Ok(());
        }
        self.command(words, ctx, Stdin { doc, piped })
    }

    fn item(
        &mut self,
        item: &Item,
        cmd: &dyn Display,
        words: &mut Vec<Word>,
        doc: &mut bool,
    ) -> Result<(), ParseError> {
        match item {
            Item::IoRedirect(r) => {
                *doc |= matches!(r, IoRedirect::HereDocument(..) | IoRedirect::HereString(..));
                self.redirect(r, cmd)
            }
            // `export A=…`, `declare x=…`: an argument, read like any word.
            Item::Word(w) | Item::AssignmentWord(_, w) => {
                let word = self.word(&w.value, cmd)?;
                words.push(word);
                Ok(())
            }
            Item::ProcessSubstitution(kind, sub) => {
                self.concern(ConcernKind::ProcessSubstitution, cmd);
                words.push(Word::One(format!("{kind}(…)")));
                self.subshell(&sub.list)
            }
        }
    }

    fn assignment(&mut self, a: &Assignment, cmd: &dyn Display) -> Result<(), ParseError> {
        let (name, index) = match &a.name {
            AssignmentName::VariableName(n) => (n, None),
            AssignmentName::ArrayElementName(n, index) => (n, Some(index)),
        };
        match &a.value {
            AssignmentValue::Scalar(w) => self.scalar_assignment(name, &w.value, cmd)?,
            AssignmentValue::Array(items) => {
                if is_dangerous_env(name) {
                    self.concern(ConcernKind::Environment(name.clone()), cmd);
                }
                for (key, value) in items {
                    if let Some(k) = key {
                        self.word(&k.value, cmd)?;
                    }
                    self.word(&value.value, cmd)?;
                }
            }
        }
        // After the name's own concern, which says more (`BASH_CMDS[ls]=…`).
        if index.is_some_and(|i| !words::is_numeric_expression(i)) {
            self.concern(ConcernKind::Arithmetic, cmd);
        }
        Ok(())
    }

    /// `NAME=value`: a listed name changes what runs; the value is read like any word.
    pub(super) fn scalar_assignment(
        &mut self,
        name: &str,
        value: &str,
        cmd: &dyn Display,
    ) -> Result<(), ParseError> {
        let analysis = words::analyze(value, &self.opts);
        let literal = analysis.word.as_ref().and_then(Word::literal);
        if is_dangerous_assignment(name, literal) {
            self.concern(ConcernKind::Environment(name.to_owned()), cmd);
        }
        self.take(analysis, cmd).map(|_| ())
    }
}

/// Where the command's standard input comes from.
#[derive(Debug, Clone, Copy)]
pub(super) struct Stdin {
    /// A here-document or here-string.
    pub doc: bool,
    /// The previous command of a pipeline.
    pub piped: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parser_panics_become_errors() {
        // `~+N` with N over usize::MAX makes brush-parser unwrap a failed number parse; the
        // prescan refuses such numbers, so go around it to check the guard itself.
        let result = guarded(|| {
            let mut walker = Walker::new();
            walker.word("~+99999999999999999999999", &"cat").map(|_| ())
        });
        assert_eq!(
            result,
            Err(ParseError::Syntax("the parser failed on it".to_owned()))
        );
    }

    #[test]
    fn relative_paths() {
        let mut dir = vec!["src".to_owned()];
        assert!(push_relative(&mut dir, "./a/../b"));
        assert_eq!(dir, ["src", "b"]);
        assert!(!push_relative(&mut dir, "../../../x"));
    }
}
