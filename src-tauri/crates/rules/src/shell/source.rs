//! Quoting a command as the user wrote it in a `why`: the source text of a syntax node,
//! found from brush-parser's positions (in characters) only when a concern is shown.

use std::fmt::{self, Display};
use std::rc::Rc;

use brush_parser::SourceSpan;
use brush_parser::ast::{
    CommandPrefixOrSuffixItem as Item, IoFileRedirectTarget as Target, IoRedirect, SimpleCommand,
    SourceLocation,
};

/// A syntax node that knows where it is in its text: start and end (exclusive), in
/// characters.
pub(super) trait Node: Display {
    fn span(&self) -> Option<(usize, usize)>;
}

impl<T: Display + SourceLocation> Node for T {
    fn span(&self) -> Option<(usize, usize)> {
        self.location().map(|s| (s.start.index, s.end.index))
    }
}

/// A simple command, whose span covers its redirections (see `simple_span`).
pub(super) struct SimpleNode<'a>(pub(super) &'a SimpleCommand);

impl Display for SimpleNode<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl Node for SimpleNode<'_> {
    fn span(&self) -> Option<(usize, usize)> {
        simple_span(self.0)
    }
}

/// Displays a node as its source text (brush's own rendering of a node is normalized, and
/// reads oddly: `<(( ls ))`), falling back to that rendering. Looked up only when shown.
pub(super) struct Src<'a> {
    pub(super) source: Rc<str>,
    pub(super) node: &'a dyn Node,
}

impl Display for Src<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self
            .node
            .span()
            .and_then(|(start, end)| char_slice(&self.source, start, end));
        match text {
            Some(text) => f.write_str(text.trim_end()),
            None => self.node.fmt(f),
        }
    }
}

/// Where a simple command is in its text: brush-parser gives redirections no location, so
/// the span is taken over the words inside them too.
fn simple_span(cmd: &SimpleCommand) -> Option<(usize, usize)> {
    let mut spans: Vec<Option<SourceSpan>> = Vec::new();
    let items = cmd
        .prefix
        .iter()
        .flat_map(|p| p.0.iter())
        .chain(cmd.suffix.iter().flat_map(|s| s.0.iter()));
    for item in items {
        spans.push(match item {
            Item::Word(w) | Item::AssignmentWord(_, w) => w.location(),
            Item::ProcessSubstitution(_, sub) => Some(sub.loc.clone()),
            Item::IoRedirect(r) => match r {
                IoRedirect::File(_, _, Target::Filename(w) | Target::Duplicate(w))
                | IoRedirect::OutputAndError(w, _)
                | IoRedirect::HereString(_, w) => w.location(),
                IoRedirect::HereDocument(_, doc) => doc.here_end.location(),
                IoRedirect::File(_, _, Target::ProcessSubstitution(_, sub)) => {
                    Some(sub.loc.clone())
                }
                IoRedirect::File(_, _, Target::Fd(_)) => None,
            },
        });
    }
    spans.push(cmd.word_or_name.as_ref().and_then(|w| w.location()));
    let spans = spans.into_iter().flatten();
    spans.fold(None, |acc, s| {
        let (start, end) = (s.start.index, s.end.index);
        Some(match acc {
            None => (start, end),
            Some((a, b)) => (a.min(start), b.max(end)),
        })
    })
}

/// `text[start..end]` in characters (the parser counts positions in characters).
fn char_slice(text: &str, start: usize, end: usize) -> Option<&str> {
    if start >= end {
        return None;
    }
    if text.is_ascii() {
        return text.get(start..end);
    }
    let mut offsets = text
        .char_indices()
        .map(|(b, _)| b)
        .chain(std::iter::once(text.len()));
    let from = offsets.nth(start)?;
    let to = offsets.nth(end - start - 1)?;
    text.get(from..to)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_by_characters() {
        assert_eq!(char_slice("echo ｇit x", 5, 8), Some("ｇit"));
        assert_eq!(char_slice("echo ｇit x", 9, 10), Some("x"));
        assert_eq!(char_slice("abc", 1, 3), Some("bc"));
        assert_eq!(char_slice("abc", 2, 9), None);
    }
}
