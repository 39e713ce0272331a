//! Text a hook printed, kept bounded: every reason, context and message this crate keeps is
//! at most [`MAX_TEXT_BYTES`] long, cut at a character boundary with a marker saying so; and
//! the short, one-line quotes of commands that titles and errors use.

use std::borrow::Cow;

/// Longest reason, context or message kept from one hook's output, marker included.
pub const MAX_TEXT_BYTES: usize = 10 * 1024;
/// Room kept at the end of a cut text for the marker.
const MARKER_ROOM: usize = 64;
/// Longest quote of a command in a title or an error, in characters.
const MAX_SNIPPET_CHARS: usize = 60;

/// What a hook wrote, as text: bytes that are not UTF-8 replaced, surrounding white space
/// trimmed, bounded. `None` when nothing is left.
pub(crate) fn kept(bytes: &[u8]) -> Option<String> {
    bounded(&String::from_utf8_lossy(bytes))
}

/// `text` trimmed and bounded; `None` when it is empty.
pub(crate) fn bounded(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty()).then(|| cut(text, MAX_TEXT_BYTES))
}

/// `text` whole when it fits in `max` bytes, else its start and a marker naming how much
/// was left out, the whole at most `max` bytes (for `max` over the marker's room).
pub(crate) fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max.saturating_sub(MARKER_ROOM);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… [cut: {} more bytes]", &text[..end], text.len() - end)
}

/// A command or pattern as quoted in a title or an error: one line, printable, at most
/// [`MAX_SNIPPET_CHARS`] characters.
pub(crate) fn snippet(text: &str) -> Cow<'_, str> {
    let clean = |c: char| if c.is_control() { ' ' } else { c };
    let long = text.chars().count() > MAX_SNIPPET_CHARS;
    if !long && !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut out: String = text.chars().take(MAX_SNIPPET_CHARS).map(clean).collect();
    if long {
        out.push('…');
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_keeps_short_text_and_marks_long_text() {
        assert_eq!(cut("abc", 10), "abc");
        let long = "é".repeat(MAX_TEXT_BYTES);
        let out = cut(&long, MAX_TEXT_BYTES);
        assert!(out.len() <= MAX_TEXT_BYTES, "{}", out.len());
        assert!(out.contains("[cut: "), "{out}");
        assert!(out.starts_with('é'));
    }

    #[test]
    fn kept_trims_replaces_and_drops_empty() {
        assert_eq!(kept(b"  \n"), None);
        assert_eq!(kept(b" no\n").as_deref(), Some("no"));
        assert_eq!(kept(b"a\xffb").as_deref(), Some("a\u{fffd}b"));
    }

    #[test]
    fn snippets_are_one_bounded_line() {
        assert_eq!(snippet("./check.sh"), "./check.sh");
        assert_eq!(snippet("a\nb"), "a b");
        let long = "x".repeat(100);
        let s = snippet(&long);
        assert_eq!(s.chars().count(), MAX_SNIPPET_CHARS + 1);
        assert!(s.ends_with('…'));
    }
}
