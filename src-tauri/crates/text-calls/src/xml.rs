//! Qwen3-Coder's XML calls:
//!
//! ```text
//! <tool_call>
//! <function=file_read>
//! <parameter=path>
//! src/main.rs
//! </parameter>
//! </function>
//! </tool_call>
//! ```
//!
//! Parameter values are text. One newline after the opening tag and one before the
//! closing tag belong to the layout and are dropped; other whitespace and newlines are
//! kept. A value that (trimmed) parses as a JSON number, boolean, array or object becomes
//! that JSON (`<parameter=limit>20</parameter>` is the number 20); anything else,
//! including `null` and quoted text, stays a string. Without the tool's schema the reader
//! cannot tell that a value like `42` was meant as text; the tool's validation says so.

use std::ops::Range;

use serde_json::{Map, Value};

use super::envelope::Shape;
use super::scan::Next;
use super::{Found, Scope, accepts};

pub(super) const FUNCTION: &str = "<function=";
const FUNCTION_END: &str = "</function>";
const PARAMETER: &str = "<parameter=";
const PARAMETER_END: &str = "</parameter>";
const TOOL_CALL_END: &str = "</tool_call>";

/// Names longer than this are not a tool name (and `>` is not searched for further).
const MAX_NAME: usize = 256;

/// The `<function=NAME>` blocks in `text[range]` naming known tools. Each spans its own
/// block, or `span` when given (the `<tool_call>` tag around them). Without a tag around
/// it, a block needs a parameter or its closing `</function>`.
pub(super) fn functions(
    scope: &Scope<'_>,
    range: Range<usize>,
    span: Option<Range<usize>>,
) -> Vec<Found> {
    let text = &scope.text[..range.end];
    let mut out = Vec::new();
    let mut starts = Next::new(text, FUNCTION);
    let mut ends = Next::new(text, FUNCTION_END);
    let mut tag_ends = Next::new(text, TOOL_CALL_END);
    let mut from = range.start;
    while let Some(start) = starts.at_or_after(from) {
        let name_start = start + FUNCTION.len();
        from = name_start;
        let Some(close) = tag_end(&text[name_start..]) else {
            continue;
        };
        let name = text[name_start..name_start + close].trim();
        let body_start = name_start + close + 1;
        let (body_end, end, closed) = match ends.at_or_after(body_start) {
            Some(i) => (i, i + FUNCTION_END.len(), true),
            None => {
                let stop = [
                    starts.at_or_after(body_start),
                    tag_ends.at_or_after(body_start),
                ]
                .into_iter()
                .flatten()
                .min()
                .unwrap_or(range.end);
                (stop, stop, false)
            }
        };
        from = end.max(body_start);
        if !accepts(scope.known, name) || (span.is_none() && !scope.allowed(start)) {
            continue;
        }
        let params = parameters(&text[body_start..body_end]);
        // Outside a <tool_call> tag, a block must look like one: prose may name
        // `<function=grep>` in passing.
        if span.is_none() && !closed && params.is_empty() {
            continue;
        }
        let input = Value::Object(params);
        let span = span.clone().unwrap_or(start..end);
        out.push(Found::new(name.to_owned(), input, span, Shape::Whole));
    }
    out
}

/// Where the `>` closing a `<function=` or `<parameter=` tag is, if soon enough.
fn tag_end(s: &str) -> Option<usize> {
    s.char_indices()
        .take_while(|(i, c)| *i <= MAX_NAME && *c != '\n')
        .find(|(_, c)| *c == '>')
        .map(|(i, _)| i)
}

/// The `<parameter=KEY>value</parameter>` pairs of a function body. A parameter missing
/// its closing tag runs to the next parameter or the end of the body.
fn parameters(body: &str) -> Map<String, Value> {
    let mut params = Map::new();
    let (mut starts, mut ends) = (Next::new(body, PARAMETER), Next::new(body, PARAMETER_END));
    let mut from = 0;
    while let Some(found) = starts.at_or_after(from) {
        let key_start = found + PARAMETER.len();
        from = key_start;
        let Some(close) = tag_end(&body[key_start..]) else {
            continue;
        };
        let key = body[key_start..key_start + close].trim();
        let value_start = key_start + close + 1;
        let (value_end, next) = match (
            ends.at_or_after(value_start),
            starts.at_or_after(value_start),
        ) {
            (Some(e), n) if n.is_none_or(|n| e < n) => (e, e + PARAMETER_END.len()),
            (_, Some(n)) => (n, n),
            _ => (body.len(), body.len()),
        };
        from = next;
        if !key.is_empty() {
            params.insert(key.to_owned(), value(&body[value_start..value_end]));
        }
    }
    params
}

/// A parameter's text as a value (see the module documentation for the rule).
fn value(raw: &str) -> Value {
    let raw = raw
        .strip_prefix("\r\n")
        .or_else(|| raw.strip_prefix('\n'))
        .unwrap_or(raw);
    let raw = raw
        .strip_suffix("\r\n")
        .or_else(|| raw.strip_suffix('\n'))
        .unwrap_or(raw);
    match serde_json::from_str::<Value>(raw.trim()) {
        Ok(v @ (Value::Number(_) | Value::Bool(_) | Value::Array(_) | Value::Object(_))) => v,
        _ => Value::String(raw.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_keep_their_text_and_become_json_when_they_are() {
        assert_eq!(value("\nsrc/main.rs\n"), json!("src/main.rs"));
        assert_eq!(value("\n  two\n\nlines \n"), json!("  two\n\nlines "));
        assert_eq!(value("\r\nx\r\n"), json!("x"));
        assert_eq!(value("\n20\n"), json!(20));
        assert_eq!(value(" true "), json!(true));
        assert_eq!(value("[1, \"a\"]"), json!([1, "a"]));
        assert_eq!(value("{\"k\": 1}"), json!({"k": 1}));
        assert_eq!(value("null"), json!("null"));
        assert_eq!(value("\"quoted\""), json!("\"quoted\""));
        assert_eq!(value(""), json!(""));
    }

    #[test]
    fn parameters_without_closing_tags_run_to_the_next() {
        let body = "\n<parameter=a>\n1\n<parameter=b>x</parameter>\n<parameter=>\nz</parameter>";
        assert_eq!(Value::Object(parameters(body)), json!({"a": 1, "b": "x"}));
    }
}
