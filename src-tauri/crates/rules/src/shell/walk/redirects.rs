//! Redirections: where a file redirection writes (in the workspace, or it asks), and the
//! variables a `{NAME}>file` redirection assigns.

use std::fmt::Display;

use brush_parser::ast::{
    self, CommandPrefixOrSuffixItem as Item, IoFileRedirectTarget, IoRedirect, SimpleCommand,
};

use super::super::words;
use super::super::{ConcernKind, Word};
use super::builtins::is_name;
use super::{PendingRedirect, Walker};
use crate::error::ParseError;

/// Absolute redirection targets that reach nothing outside the command.
const SAFE_DEVICES: [&str; 4] = ["/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr"];

impl Walker {
    /// The variables `{NAME}>file` assigns: bash opens the file on a new descriptor and puts
    /// its number in NAME (for a builtin, in the shell itself). brush-parser reads `{NAME}` as
    /// a word before the redirection, so a word of that shape ending right where a
    /// redirection follows is taken for one (the fast reader leaves both to the grammar).
    pub(crate) fn fd_variables(&self, cmd: &SimpleCommand) -> Vec<String> {
        let prefix = cmd.prefix.iter().flat_map(|p| p.0.iter());
        let suffix = cmd.suffix.iter().flat_map(|s| s.0.iter());
        // Each item as the word it is (`None`: a redirection), in order.
        let items = prefix
            .map(Some)
            .chain(std::iter::once(None))
            .chain(suffix.map(Some))
            .filter_map(|item| match item {
                Some(Item::IoRedirect(_)) => Some(None),
                Some(Item::Word(w) | Item::AssignmentWord(_, w)) => Some(Some(w)),
                Some(Item::ProcessSubstitution(..)) => Some(None),
                None => cmd.word_or_name.as_ref().map(Some),
            });
        let mut out = Vec::new();
        let mut last: Option<&ast::Word> = None;
        for item in items {
            match item {
                Some(w) => last = Some(w),
                None => {
                    if let Some(w) = last.take() {
                        out.extend(self.fd_variable(w));
                    }
                }
            }
        }
        out
    }

    fn fd_variable(&self, word: &ast::Word) -> Option<String> {
        let inner = word.value.strip_prefix('{')?.strip_suffix('}')?;
        let name = inner.split_once('[').map_or(inner, |(n, _)| n);
        // Spaced (`{NAME} >x`) it is an argument; without a location, assume it touches.
        let next = word
            .loc
            .as_ref()
            .map(|l| self.source.chars().nth(l.end.index));
        let touches = next.is_none_or(|c| matches!(c, Some('<' | '>')));
        (is_name(name) && touches).then(|| name.to_owned())
    }

    /// A redirection to or from a file named by `raw`; with `dup` (`>&`, `<&`), a number
    /// (`>&2`, `<&0`, `>&-`, `>&3-`) copies a descriptor instead.
    pub(crate) fn file_redirect(
        &mut self,
        raw: &str,
        dup: bool,
        context: &dyn Display,
    ) -> Result<(), ParseError> {
        if dup
            && raw
                .trim_end_matches('-')
                .bytes()
                .all(|b| b.is_ascii_digit())
        {
            return Ok(());
        }
        self.redirect_target(raw, context)
    }

    pub(crate) fn redirect(
        &mut self,
        r: &IoRedirect,
        context: &dyn Display,
    ) -> Result<(), ParseError> {
        match r {
            IoRedirect::File(_, _, IoFileRedirectTarget::Filename(w))
            | IoRedirect::OutputAndError(w, _) => self.file_redirect(&w.value, false, context),
            IoRedirect::File(_, _, IoFileRedirectTarget::Duplicate(w)) => {
                self.file_redirect(&w.value, true, context)
            }
            IoRedirect::File(_, _, IoFileRedirectTarget::Fd(_)) => Ok(()),
            IoRedirect::File(_, _, IoFileRedirectTarget::ProcessSubstitution(_, sub)) => {
                self.concern(ConcernKind::ProcessSubstitution, context);
                self.subshell(&sub.list)
            }
            IoRedirect::HereDocument(_, doc) => {
                if doc.requires_expansion {
                    let analysis = words::analyze_heredoc(&doc.doc.value, &self.opts);
                    self.take(analysis, context)?;
                }
                Ok(())
            }
            IoRedirect::HereString(_, w) => self.word(&w.value, context).map(|_| ()),
        }
    }

    fn redirect_target(&mut self, raw: &str, context: &dyn Display) -> Result<(), ParseError> {
        let analysis = words::analyze(raw, &self.opts);
        let tilde = analysis.tilde;
        let word = self.take(analysis, context)?;
        match word {
            Word::Literal(target) => {
                if tilde {
                    self.concern(
                        ConcernKind::Redirect(format!("{target} in the home folder")),
                        context,
                    );
                } else if target.starts_with('/') {
                    if !SAFE_DEVICES.contains(&target.as_str()) {
                        self.concern(
                            ConcernKind::Redirect(format!("the absolute path {target}")),
                            context,
                        );
                    }
                } else {
                    self.redirects.push(PendingRedirect {
                        target,
                        cwd: self.cwd.clone(),
                        context: context.to_string(),
                    });
                }
            }
            Word::One(raw) | Word::Many { raw, .. } => {
                self.concern(
                    ConcernKind::Redirect(format!("{raw}, only known when it runs")),
                    context,
                );
            }
        }
        Ok(())
    }
}
