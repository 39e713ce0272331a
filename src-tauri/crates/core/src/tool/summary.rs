//! One-line summaries of tool calls, for cards, approvals and the CLI.

use serde_json::Value;

/// Longest summary a tool returns.
pub const SUMMARY_CHARS: usize = 100;

/// Fields that usually say what a call is about, in order of preference.
const TELLING_FIELDS: [&str; 5] = ["path", "command", "pattern", "url", "query"];

/// The summary of a call to a tool that says nothing better: its telling field, else its
/// first string field, else its input as compact JSON; empty for no input.
pub fn summarize_input(input: &Value) -> String {
    let text = match input {
        Value::Object(map) if map.is_empty() => String::new(),
        Value::Object(map) => TELLING_FIELDS
            .iter()
            .find_map(|k| map.get(*k).and_then(Value::as_str))
            .or_else(|| map.values().find_map(Value::as_str))
            .map_or_else(|| input.to_string(), str::to_owned),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    one_line(&text, SUMMARY_CHARS)
}

/// The text on one line (whitespace runs become one space), cut to `max` characters with an
/// ellipsis.
pub fn one_line(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        flat
    } else {
        let mut cut: String = flat.chars().take(max.saturating_sub(1)).collect();
        cut.push('…');
        cut
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
    fn long_text_is_one_clipped_line() {
        let s = summarize_input(&json!({"command": format!("ls\n  -la {}", "b".repeat(200))}));
        assert!(s.starts_with("ls -la b"));
        assert_eq!(s.chars().count(), SUMMARY_CHARS);
        assert!(s.ends_with('…'));
    }
}
