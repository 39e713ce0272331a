//! Calls whose JSON was only cut short: the reply stopped (or the model forgot) before the
//! last closing brackets, or inside the last string. Closing what is open recovers what
//! the model wrote; anything else wrong stays unreadable, and the tool says so.

use serde_json::Value;

use super::envelope::{Shape, calls_in};

/// The input of a broken call of `name`, from `raw` (the call's JSON, or its arguments'
/// object): read again with its open strings and brackets closed (and a dangling comma or
/// colon dealt with). `None` when that does not make a readable call.
pub fn repair_input(raw: &str, name: &str) -> Option<Value> {
    let value = close_open(raw.trim())?;
    let found = calls_in(&value, &[name], true);
    match found.into_iter().next() {
        Some((_, input, Shape::Whole)) => Some(input),
        Some((_, _, Shape::Broken)) => None,
        // Not an envelope: the arguments' object itself (Mistral's `name[ARGS]{...}`).
        None => value.is_object().then_some(value),
    }
}

/// Parses `text` after closing its open string and brackets; `None` when that fails, or
/// when a bracket closes the wrong kind (that is not a cut-off).
fn close_open(text: &str) -> Option<Value> {
    if !text.starts_with(['{', '[']) {
        return None;
    }
    let mut stack = Vec::new();
    let (mut in_string, mut escaped) = (false, false);
    let mut end = text.len();
    for (i, b) in text.bytes().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' => stack.push(b'}'),
            b'[' => stack.push(b']'),
            b'}' | b']' => {
                if stack.pop() != Some(b) {
                    return None;
                }
                if stack.is_empty() {
                    end = i + 1;
                    break;
                }
            }
            _ => {}
        }
    }
    let mut fixed = text[..end].to_owned();
    if stack.is_empty() {
        return serde_json::from_str(&fixed).ok();
    }
    if escaped {
        fixed.pop();
    }
    if in_string {
        fixed.push('"');
    }
    let trimmed = fixed.trim_end().to_owned();
    let mut fixed = match trimmed.strip_suffix(',') {
        Some(rest) => rest.to_owned(),
        None => trimmed,
    };
    if fixed.ends_with(':') {
        fixed.push_str("null");
    }
    while let Some(close) = stack.pop() {
        fixed.push(char::from(close));
    }
    serde_json::from_str(&fixed).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cut_off_calls_are_closed() {
        let got = |raw: &str| repair_input(raw, "file_read");
        assert_eq!(
            got(r#"{"name": "file_read", "arguments": {"path": "notes.txt"}"#),
            Some(json!({"path": "notes.txt"}))
        );
        assert_eq!(
            got(r#"{"name": "file_read", "arguments": {"path": "notes.t"#),
            Some(json!({"path": "notes.t"}))
        );
        assert_eq!(
            got(r#"{"name": "file_read", "arguments": {"path": "a", "#),
            Some(json!({"path": "a"}))
        );
        assert_eq!(
            got(r#"{"name": "file_read", "arguments": {"path":"#),
            Some(json!({"path": null}))
        );
        assert_eq!(got(r#"{"path": "a.rs""#), Some(json!({"path": "a.rs"})));
    }

    #[test]
    fn other_damage_is_not_guessed_at() {
        let got = |raw: &str| repair_input(raw, "grep");
        assert_eq!(
            got(r#"{"name": "grep" "arguments": {"pattern": "x"}}"#),
            None
        );
        assert_eq!(got(r#"{"name": "grep", "arguments": "pattern=x"}"#), None);
        assert_eq!(got(r#"{"name": "grep", "arguments": [}"#), None);
        assert_eq!(got("pattern=x"), None);
    }
}
