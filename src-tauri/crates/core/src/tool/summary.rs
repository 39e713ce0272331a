//! One-line summaries of tool calls, for cards, approvals and the CLI.

use serde_json::Value;

/// Longest summary a tool returns.
pub const SUMMARY_CHARS: usize = 100;

/// Fields that usually say what a call is about, in order of preference.
const TELLING_FIELDS: [&str; 5] = ["path", "command", "pattern", "url", "query"];

/// The summary of a call to a tool that says nothing better: its telling field, else its
/// first string field, else its input as compact JSON; empty for no input.
pub fn summarize_input(input: &Value) -> String {
    match input {
        Value::Object(map) if map.is_empty() => String::new(),
        Value::Object(map) => match TELLING_FIELDS
            .iter()
            .find_map(|k| map.get(*k).and_then(Value::as_str))
            .or_else(|| map.values().find_map(Value::as_str))
        {
            Some(text) => one_line(text, SUMMARY_CHARS),
            None => one_line_owned(compact_json(input), SUMMARY_CHARS),
        },
        Value::Null => String::new(),
        other => one_line_owned(compact_json(other), SUMMARY_CHARS),
    }
}

/// JSON without white space, written into one buffer that small inputs do not outgrow.
fn compact_json(value: &Value) -> String {
    let mut out = Vec::with_capacity(SUMMARY_CHARS + 28);
    // Writing to a Vec cannot fail, and serde_json writes UTF-8.
    match serde_json::to_writer(&mut out, value) {
        Ok(()) => String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        Err(_) => value.to_string(),
    }
}

/// The text on one line (whitespace runs become one space), cut to `max` characters with an
/// ellipsis.
pub fn one_line(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max.saturating_mul(4)) + '…'.len_utf8());
    let mut count = 0;
    // Where the text is cut if it runs over: after `max - 1` characters.
    let mut cut_at = 0;
    for (i, word) in text.split_whitespace().enumerate() {
        let space = if i == 0 { "" } else { " " };
        for ch in space.chars().chain(word.chars()) {
            if count == max {
                out.truncate(cut_at);
                out.push('…');
                return out;
            }
            if count + 1 == max {
                cut_at = out.len();
            }
            out.push(ch);
            count += 1;
        }
    }
    out
}

/// [`one_line`] for an owned text: kept as it is when it is one line already and fits.
fn one_line_owned(text: String, max: usize) -> String {
    let flat = !text.starts_with(' ')
        && !text.ends_with(' ')
        && !text.contains("  ")
        && !text.chars().any(|c| c.is_whitespace() && c != ' ');
    if flat && (text.len() <= max || text.chars().count() <= max) {
        text
    } else {
        one_line(&text, max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn picks_the_telling_field_then_any_string() {
        assert_eq!(
            summarize_input(&json!({"content": "x", "path": "a.txt"})),
            "a.txt"
        );
        assert_eq!(summarize_input(&json!({"n": 1, "name": "b"})), "b");
        assert_eq!(summarize_input(&json!({"n": 1})), "{\"n\":1}");
        assert_eq!(summarize_input(&json!({})), "");
        assert_eq!(summarize_input(&Value::Null), "");
    }

    #[test]
    fn one_line_matches_joining_the_words_and_clipping() {
        let reference = |text: &str, max: usize| {
            let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
            if flat.chars().count() <= max {
                flat
            } else {
                let mut cut: String = flat.chars().take(max.saturating_sub(1)).collect();
                cut.push('…');
                cut
            }
        };
        let texts = [
            "",
            " ",
            "a",
            "ab",
            " a  b\n",
            "é b\tc",
            "abc def",
            "  x y z  ",
            "ü\u{a0}v",
        ];
        for text in texts {
            for max in 0..9 {
                assert_eq!(one_line(text, max), reference(text, max), "{text:?} {max}");
                assert_eq!(
                    one_line_owned(text.to_owned(), max),
                    reference(text, max),
                    "{text:?} {max}"
                );
            }
        }
    }

    #[test]
    fn long_text_is_one_clipped_line() {
        let s = summarize_input(&json!({"command": format!("ls\n  -la {}", "b".repeat(200))}));
        assert!(s.starts_with("ls -la b"));
        assert_eq!(s.chars().count(), SUMMARY_CHARS);
        assert!(s.ends_with('…'));
    }
}
