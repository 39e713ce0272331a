//! Text for a terminal: what the model, a tool, a repository or a session wrote is shown, never
//! obeyed. Control characters that a terminal would act on (an OSC that sets the clipboard or
//! the title, a CSI that erases a line, a lone carriage return that writes over one) are
//! printed as visible text: C0 in caret notation (`ESC` as `^[`, `DEL` as `^?`), C1 as
//! `<U+009B>`. So are the bidi embeddings, overrides and isolates (`<U+202E>`): they reorder
//! what follows, so a line can read as something other than what it says. Newlines and tabs
//! stay, and so does the `\r` of a `\r\n`.

use std::borrow::Cow;

/// `text` with every control character but `\n`, `\t` and the `\r` of `\r\n`, and every
/// bidi override, made visible; borrowed when there is none.
pub fn visible(text: &str) -> Cow<'_, str> {
    render(text, false)
}

fn render(text: &str, keep_esc: bool) -> Cow<'_, str> {
    let mut chars = text.char_indices().peekable();
    let mut shown: Option<String> = None;
    while let Some((i, ch)) = chars.next() {
        let next_is_lf = chars.peek().is_some_and(|(_, c)| *c == '\n');
        let kept = !(is_control(ch) || is_bidi(ch))
            || matches!(ch, '\n' | '\t')
            || (ch == '\r' && next_is_lf)
            || (ch == '\x1b' && keep_esc);
        match (&mut shown, kept) {
            (Some(s), true) => s.push(ch),
            (Some(s), false) => push_visible(s, ch),
            (None, true) => {}
            (None, false) => {
                let mut s = String::with_capacity(text.len() + 8);
                s.push_str(&text[..i]);
                push_visible(&mut s, ch);
                shown = Some(s);
            }
        }
    }
    shown.map_or(Cow::Borrowed(text), Cow::Owned)
}

/// A line of JSON with DEL, C1 and the bidi overrides written as `\u` escapes too (serde_json
/// escapes only C0): the same values for the program that reads it, nothing a terminal would
/// act on.
pub fn json_text(json: &str) -> Cow<'_, str> {
    // In JSON these can only stand inside strings, where an escape means the same character.
    let raw = |c: char| matches!(c, '\x7f'..='\u{9f}') || is_bidi(c);
    if !json.chars().any(raw) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for ch in json.chars() {
        if raw(ch) {
            out.push_str(&format!("\\u{:04x}", u32::from(ch)));
        } else {
            out.push(ch);
        }
    }
    Cow::Owned(out)
}

/// C0, DEL and C1.
fn is_control(ch: char) -> bool {
    matches!(ch, '\0'..='\x1f' | '\x7f'..='\u{9f}')
}

/// The bidi embeddings, overrides and isolates (the "Trojan Source" set rustc warns about).
fn is_bidi(ch: char) -> bool {
    matches!(ch, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn push_visible(out: &mut String, ch: char) {
    match ch {
        '\x7f' => out.push_str("^?"),
        '\0'..='\x1f' => {
            out.push('^');
            // `^@` .. `^_`: the letter a terminal's own echo uses.
            out.push(char::from(ch as u8 + 0x40));
        }
        _ => out.push_str(&format!("<U+{:04X}>", u32::from(ch))),
    }
}

/// Where the log goes: stderr, each line rendered too. tracing escapes ESC and C1 in what a
/// line carries, not a lone `\r` or the other C0; with colours on, an ESC left in the line is
/// the formatter's own, and kept.
#[derive(Debug, Clone, Copy)]
pub struct LogWriter {
    pub colours: bool,
}

impl std::io::Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // The formatter writes one whole event at a time.
        let text = String::from_utf8_lossy(buf);
        std::io::stderr()
            .lock()
            .write_all(render(&text, self.colours).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().lock().flush()
    }
}

/// Text that comes in pieces (an answer's deltas): a `\r` ending one piece is held until the
/// next shows whether a `\n` follows it.
#[derive(Debug, Default)]
pub struct Stream {
    held_cr: bool,
}

impl Stream {
    /// The piece, rendered as [`visible`] would render it within the whole text.
    pub fn push(&mut self, piece: &str) -> String {
        let mut text = String::with_capacity(piece.len() + 1);
        if std::mem::take(&mut self.held_cr) {
            text.push('\r');
        }
        text.push_str(piece);
        if text.ends_with('\r') {
            text.pop();
            self.held_cr = true;
        }
        visible(&text).into_owned()
    }

    /// What is still held, rendered: the text ended (or a line of ours comes next).
    pub fn finish(&mut self) -> &'static str {
        if std::mem::take(&mut self.held_cr) {
            "^M"
        } else {
            ""
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed_as_it_is() {
        let text = "line one\n\tindented — ünïcode ✓\r\nlast";
        assert!(matches!(visible(text), Cow::Borrowed(t) if t == text));
    }

    #[test]
    fn escape_sequences_are_shown_not_obeyed() {
        assert_eq!(
            visible("a\x1b]52;c;aGk=\x07b"),
            "a^[]52;c;aGk=^Gb",
            "OSC 52 (clipboard)"
        );
        assert_eq!(visible("\x1b]0;owned\x07"), "^[]0;owned^G", "OSC 0 (title)");
        assert_eq!(visible("\x1b[2K\x1b[1A"), "^[[2K^[[1A", "erase, cursor up");
        assert_eq!(visible("\u{9b}2K"), "<U+009B>2K", "C1 CSI");
        assert_eq!(
            visible("\u{9d}0;t\u{9c}"),
            "<U+009D>0;t<U+009C>",
            "C1 OSC, ST"
        );
        assert_eq!(visible("\0\x7f\x08"), "^@^?^H");
        assert_eq!(visible("\x1b[2J\x07"), "^[[2J^G", "clear screen, bell");
    }

    #[test]
    fn bidi_overrides_are_shown_not_obeyed() {
        // "access denied" that a terminal would draw as "access deined" and the like.
        assert_eq!(
            visible("ok \u{202e}deined\u{202c} \u{2066}x\u{2069}"),
            "ok <U+202E>deined<U+202C> <U+2066>x<U+2069>"
        );
        for ch in ['\u{202a}', '\u{202b}', '\u{202d}', '\u{2067}', '\u{2068}'] {
            assert_eq!(
                visible(&ch.to_string()),
                format!("<U+{:04X}>", u32::from(ch))
            );
        }
        // Right-to-left text itself, and the marks it uses, stay as written.
        assert_eq!(visible("שלום \u{200f}عربي"), "שלום \u{200f}عربي");
    }

    #[test]
    fn a_lone_carriage_return_is_shown_but_crlf_is_kept() {
        assert_eq!(visible("safe\rrm -rf"), "safe^Mrm -rf");
        assert_eq!(visible("end\r"), "end^M");
        assert_eq!(visible("a\r\nb\r\n"), "a\r\nb\r\n");
        assert_eq!(visible("\r\r\n"), "^M\r\n");
    }

    #[test]
    fn nothing_else_changes() {
        // The characters right outside the ranges pass; so do newlines and tabs.
        assert_eq!(visible(" ~\u{a0}\u{a1}\n\t"), " ~\u{a0}\u{a1}\n\t");
        assert_eq!(
            visible("\u{2029}\u{202f}\u{2065}\u{206a}"),
            "\u{2029}\u{202f}\u{2065}\u{206a}"
        );
        let all: String = (0u32..0x3000).filter_map(char::from_u32).collect();
        let shown = visible(&all);
        assert!(
            !shown
                .chars()
                .any(|c| (is_control(c) && !matches!(c, '\n' | '\t')) || is_bidi(c)),
            "{shown:?}"
        );
    }

    #[test]
    fn the_log_keeps_its_colours_only() {
        assert_eq!(
            render("\x1b[33mWARN\x1b[0m a\rb", true),
            "\x1b[33mWARN\x1b[0m a^Mb"
        );
        assert_eq!(render("\x1b[33m a\rb", false), "^[[33m a^Mb");
    }

    #[test]
    fn json_keeps_its_values_and_loses_the_raw_controls() {
        let value = serde_json::json!({"text": "\x1b]0;t\x07 \u{9b}2K \x7f é\r \u{202e}"});
        let line = value.to_string();
        assert!(line.contains('\u{9b}'), "serde_json leaves C1 raw: {line}");
        let safe = json_text(&line);
        assert!(!safe.chars().any(|c| is_control(c) || is_bidi(c)), "{safe}");
        assert!(
            safe.contains("\\u009b") && safe.contains("\\u007f") && safe.contains("\\u202e"),
            "{safe}"
        );
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, value);
        assert!(matches!(json_text("{\"a\":\"b\"}"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_stream_renders_as_the_whole_text_would() {
        let text = "one\r\ntwo\rthree\x1b[2K\r";
        for cut in 0..=text.len() {
            let (a, b) = text.split_at(cut);
            let mut stream = Stream::default();
            let shown = stream.push(a) + &stream.push(b) + stream.finish();
            assert_eq!(shown, visible(text), "cut at {cut}");
        }
        let mut stream = Stream::default();
        assert_eq!(stream.push("x\r"), "x");
        assert!(stream.held_cr);
        assert_eq!(stream.push("\ny"), "\r\ny");
        assert!(!stream.held_cr);
        assert_eq!(stream.finish(), "");
    }
}
