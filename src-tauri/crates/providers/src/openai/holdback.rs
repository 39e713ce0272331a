//! Holds back the part of a streamed reply that may be a tool call written as text, so
//! that a call the fallback reader takes out at the end is never shown (or kept in the
//! history, or printed by the CLI) as if it were the answer. Text before the first place
//! a call may start streams as it comes; from there on the rest waits for the reply's end,
//! where it is shown without the calls found in it (or whole, when there were none).

/// Where a call written as text may start: a chat template's marker, a JSON object (`{"`)
/// or list of objects (`[{`), or a code fence of a call language followed by one.
const MARKERS: [&str; 4] = ["<tool_call", "<function=", "[TOOL_CALLS]", "<|python_tag|>"];

/// Fence languages a call may be written in (as the reader takes them).
const CALL_FENCES: [&str; 7] = [
    "",
    "json",
    "jsonc",
    "json5",
    "xml",
    "tool_call",
    "tool_calls",
];

/// How the text from some position on reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Start {
    /// A call may start here: hold everything from it.
    At(usize),
    /// Too little text to tell (`<tool_c`, a lone `{`): wait for more before showing it.
    Maybe(usize),
    None,
}

/// What of the visible text has been shown, and whether the rest is held.
#[derive(Debug, Default)]
pub(super) struct Holdback {
    /// Bytes of the visible text already shown.
    shown: usize,
    /// A call may start at or after `shown`: nothing more is shown before the end.
    holding: bool,
}

impl Holdback {
    /// The new part of `text` (the whole visible answer so far) that may be shown now.
    pub fn release<'a>(&mut self, text: &'a str) -> &'a str {
        if self.holding || self.shown >= text.len() {
            return "";
        }
        let at_line_start = self.shown == 0 || text[..self.shown].ends_with('\n');
        let rest = &text[self.shown..];
        let safe = match call_start(rest, at_line_start) {
            Start::At(i) => {
                self.holding = true;
                i
            }
            Start::Maybe(i) => i,
            Start::None => rest.len(),
        };
        // Whitespace waits for what follows it: before a held call it is not shown.
        let safe = rest[..safe].trim_end().len();
        self.shown += safe;
        &rest[..safe]
    }

    /// The reply ended: everything not shown yet.
    pub fn rest<'a>(&mut self, text: &'a str) -> &'a str {
        let from = self.shown.min(text.len());
        self.shown = text.len();
        self.holding = false;
        &text[from..]
    }
}

/// The first place in `s` where a call may start. Positions are at ASCII bytes, so on
/// character boundaries.
fn call_start(s: &str, at_line_start: bool) -> Start {
    let bytes = s.as_bytes();
    let mut line_start = at_line_start;
    let mut indent = 0usize;
    for (i, &b) in bytes.iter().enumerate() {
        // Inside a multibyte character: empty, and no arm reads it (each starts at ASCII).
        let here = s.get(i..).unwrap_or_default();
        match b {
            b'<' | b'[' if MARKERS.iter().any(|m| here.starts_with(m)) => return Start::At(i),
            b'<' | b'[' if MARKERS.iter().any(|m| m.starts_with(here)) => {
                return Start::Maybe(i);
            }
            b'{' | b'[' => {
                let next = bytes[i + 1..]
                    .iter()
                    .position(|c| !c.is_ascii_whitespace())
                    .map(|p| bytes[i + 1 + p]);
                match (b, next) {
                    (_, None) => return Start::Maybe(i),
                    (b'{', Some(b'"')) | (b'[', Some(b'{')) => return Start::At(i),
                    _ => {}
                }
            }
            b'`' | b'~' if line_start && indent <= 3 => match fence(here, b) {
                Start::None => {}
                Start::At(_) => return Start::At(i),
                Start::Maybe(_) => return Start::Maybe(i),
            },
            _ => {}
        }
        if b == b'\n' {
            line_start = true;
            indent = 0;
        } else if b == b' ' && line_start {
            indent += 1;
        } else {
            line_start = false;
        }
    }
    Start::None
}

/// A fence opening at the start of `s`: a call fence followed by JSON or a tag is a call.
fn fence(s: &str, marker: u8) -> Start {
    let run = s.bytes().take_while(|&c| c == marker).count();
    if run == s.len() && run < 3 {
        return Start::Maybe(0);
    }
    if run < 3 {
        return Start::None;
    }
    let Some(line_end) = s.find('\n') else {
        return Start::Maybe(0);
    };
    let lang = s[run..line_end].trim().to_ascii_lowercase();
    if !CALL_FENCES.contains(&lang.as_str()) {
        return Start::None;
    }
    match s[line_end..].trim_start().bytes().next() {
        None => Start::Maybe(0),
        Some(b'{' | b'[' | b'<') => Start::At(0),
        Some(_) => Start::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `pieces` one by one; what was shown while streaming, and what was held.
    fn stream(pieces: &[&str]) -> (String, String) {
        let (mut h, mut text, mut shown) = (Holdback::default(), String::new(), String::new());
        for p in pieces {
            text.push_str(p);
            shown.push_str(h.release(&text));
        }
        let rest = h.rest(&text).to_owned();
        (shown, rest)
    }

    #[test]
    fn prose_streams_and_a_call_is_held_from_its_start() {
        assert_eq!(
            stream(&["Hello ", "world."]),
            ("Hello world.".into(), String::new())
        );
        let (shown, held) = stream(&["Let me look.\n<tool", "_call>\n{\"name\"", ": \"grep\"}"]);
        assert_eq!(shown, "Let me look.");
        assert_eq!(held, "\n<tool_call>\n{\"name\": \"grep\"}");
        let (shown, held) = stream(&["Sure: {", "\"name\": \"glob\"}"]);
        assert_eq!(
            (shown.as_str(), held.as_str()),
            ("Sure:", " {\"name\": \"glob\"}")
        );
        let (shown, held) = stream(&["Here:\n``", "`json\n", "{\"a\": 1}\n```"]);
        assert_eq!(shown, "Here:");
        assert!(held.starts_with("\n```json"));
    }

    #[test]
    fn what_cannot_be_a_call_is_not_held() {
        let (shown, held) = stream(&["Use {a, b} and ", "[1, 2]. ", "<b>bold</b>"]);
        assert_eq!(held, "");
        assert_eq!(shown, "Use {a, b} and [1, 2]. <b>bold</b>");
        let (shown, held) = stream(&["```python\nprint(1)\n```\n", "done"]);
        assert_eq!(held, "");
        assert!(shown.ends_with("done"));
        // A lone brace at the end waits for what follows it, then goes out.
        let (shown, held) = stream(&["x {", " y"]);
        assert_eq!((shown.as_str(), held.as_str()), ("x { y", ""));
    }

    /// Failed before: slicing at every byte panicked inside a multibyte character, so a
    /// model's non-ASCII answer (`é`, an 8-bit CSI, a bidi override) crashed the run.
    #[test]
    fn text_beyond_ascii_streams_without_a_panic() {
        let text = "é \u{9b}2K \u{202e}txt {\"é\": 1}";
        let (shown, held) = stream(&["é \u{9b}2K", " \u{202e}txt {\"é\"", ": 1}"]);
        assert_eq!(format!("{shown}{held}"), text);
        assert_eq!(held, " {\"é\": 1}");
    }
}
