//! Recovers tool calls that a model printed as text instead of emitting them natively, as
//! small local models often do. Hermes `<tool_call>...</tool_call>` tags are tried first;
//! without them, top-level JSON objects (or arrays of them) are found with a string-aware
//! bracket scan. Only calls naming a known tool are kept; reasoning inside `<think>` blocks
//! is never searched.

use std::ops::Range;

use serde_json::{Map, Value};

/// One call found in a reply's text.
#[derive(Debug, Clone, PartialEq)]
pub struct TextToolCall {
    pub name: String,
    pub input: Value,
    /// Where the call is written in the text (the whole tag for Hermes calls).
    pub span: Range<usize>,
}

const OPEN_TAG: &str = "<tool_call>";
const CLOSE_TAG: &str = "</tool_call>";

/// Finds the tool calls written in `text` that name one of `known`.
pub fn extract_tool_calls<S: AsRef<str>>(text: &str, known: &[S]) -> Vec<TextToolCall> {
    let known: Vec<&str> = known.iter().map(AsRef::as_ref).collect();
    if known.is_empty() {
        return Vec::new();
    }
    let hidden = think_ranges(text);
    let tagged = tagged_calls(text, &known, &hidden);
    if !tagged.is_empty() {
        return tagged;
    }
    let mut calls = Vec::new();
    for segment in visible_segments(text.len(), &hidden) {
        for (span, value) in json_values(text, segment) {
            for (name, input) in calls_in(&value, &known, false) {
                calls.push(TextToolCall {
                    name,
                    input,
                    span: span.clone(),
                });
            }
        }
    }
    calls
}

/// `text` without the calls [`extract_tool_calls`] finds: what the model "said" besides them.
pub fn strip_tool_calls<S: AsRef<str>>(text: &str, known: &[S]) -> String {
    let mut spans: Vec<Range<usize>> = extract_tool_calls(text, known)
        .into_iter()
        .map(|c| widen_to_fence(text, c.span))
        .collect();
    spans.sort_by_key(|s| s.start);
    spans.dedup();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for span in spans {
        if span.start >= at {
            out.push_str(&text[at..span.start]);
            at = span.end;
        }
    }
    out.push_str(&text[at..]);
    out.trim().to_owned()
}

/// Hermes-style calls: a JSON object (or several) between `<tool_call>` tags. A missing
/// closing tag (the model stopped at it) runs to the next opening tag or the end.
fn tagged_calls(text: &str, known: &[&str], hidden: &[Range<usize>]) -> Vec<TextToolCall> {
    let mut calls = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find(OPEN_TAG) {
        let start = from + found;
        let body_start = start + OPEN_TAG.len();
        let rest = &text[body_start..];
        let (body_end, end) = match (rest.find(CLOSE_TAG), rest.find(OPEN_TAG)) {
            (Some(c), next) if next.is_none_or(|n| c < n) => {
                (body_start + c, body_start + c + CLOSE_TAG.len())
            }
            (_, Some(n)) => (body_start + n, body_start + n),
            _ => (text.len(), text.len()),
        };
        from = end.max(body_start);
        if hidden.iter().any(|h| h.contains(&start)) {
            continue;
        }
        for (_, value) in json_values(text, body_start..body_end) {
            for (name, input) in calls_in(&value, known, true) {
                calls.push(TextToolCall {
                    name,
                    input,
                    span: start..end,
                });
            }
        }
    }
    calls
}

/// The (name, input) pairs a parsed JSON value holds: a call object, an OpenAI-style
/// `{"function": {...}}` wrapper, or an array of either. `lenient` (inside tags) lets a
/// call omit its arguments.
fn calls_in(value: &Value, known: &[&str], lenient: bool) -> Vec<(String, Value)> {
    match value {
        Value::Array(items) => items
            .iter()
            .filter(|v| v.is_object())
            .flat_map(|v| calls_in(v, known, lenient))
            .collect(),
        Value::Object(obj) => call_in(obj, known, lenient).into_iter().collect(),
        _ => Vec::new(),
    }
}

fn call_in(obj: &Map<String, Value>, known: &[&str], lenient: bool) -> Option<(String, Value)> {
    let obj = match (obj.get("name"), obj.get("function")) {
        (None, Some(Value::Object(f))) => f,
        _ => obj,
    };
    let name = obj.get("name")?.as_str()?.trim();
    if !known.contains(&name) {
        return None;
    }
    let input = match obj.get("arguments").or_else(|| obj.get("parameters")) {
        Some(Value::Object(args)) => Value::Object(args.clone()),
        // Some models encode the arguments as a JSON string, as the OpenAI wire format does.
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(v @ Value::Object(_)) => v,
            _ => return None,
        },
        None | Some(Value::Null) if lenient => Value::Object(Map::new()),
        _ => return None,
    };
    Some((name.to_owned(), input))
}

/// Every top-level JSON object or array in `text[range]` that parses, with its span. A
/// bracket that does not start valid JSON is stepped over by one character, so prose
/// braces and stray quotes before a call cannot swallow it.
fn json_values(text: &str, range: Range<usize>) -> Vec<(Range<usize>, Value)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = range.start;
    while i < range.end {
        if matches!(bytes[i], b'{' | b'[') {
            if let Some(end) = matching_close(bytes, i, range.end) {
                if let Ok(v) = serde_json::from_str::<Value>(&text[i..end]) {
                    out.push((i..end, v));
                    i = end;
                    continue;
                }
            }
        }
        i += 1;
    }
    out
}

/// The index just past the bracket closing the one at `start`, tracking strings and
/// escapes; `None` when brackets do not pair up before `limit`.
fn matching_close(bytes: &[u8], start: usize, limit: usize) -> Option<usize> {
    let mut stack = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate().take(limit).skip(start) {
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
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Spans of reasoning: `<think>...</think>` (or `<thinking>`), an unclosed opening tag
/// running to the end, and, when a reply starts inside reasoning (chat templates that put
/// the opening tag in the prompt), everything before the first closing tag.
fn think_ranges(text: &str) -> Vec<Range<usize>> {
    const OPEN: [&str; 2] = ["<think>", "<thinking>"];
    const CLOSE: [&str; 2] = ["</think>", "</thinking>"];
    // ASCII lowercasing keeps byte offsets, so spans found in `lower` index `text`.
    let lower = text.to_ascii_lowercase();
    let find = |from: usize, tags: &[&str]| {
        tags.iter()
            .filter_map(|t| {
                lower[from..]
                    .find(t)
                    .map(|i| (from + i, from + i + t.len()))
            })
            .min()
    };
    let mut ranges = Vec::new();
    let mut from = 0;
    loop {
        let open = find(from, &OPEN);
        match (open, find(from, &CLOSE)) {
            (_, Some((close_start, close_end)))
                if open.is_none_or(|(open_start, _)| close_start < open_start) =>
            {
                if from == 0 {
                    ranges.push(0..close_end);
                }
                from = close_end;
            }
            (Some((open_start, open_end)), _) => match find(open_end, &CLOSE) {
                Some((_, close_end)) => {
                    ranges.push(open_start..close_end);
                    from = close_end;
                }
                None => {
                    ranges.push(open_start..text.len());
                    break;
                }
            },
            _ => break,
        }
    }
    ranges
}

fn visible_segments(len: usize, hidden: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut segments = Vec::new();
    let mut at = 0;
    for h in hidden {
        if h.start > at {
            segments.push(at..h.start);
        }
        at = at.max(h.end);
    }
    if at < len {
        segments.push(at..len);
    }
    segments
}

/// Grows a call's span over a Markdown code fence that holds nothing else.
fn widen_to_fence(text: &str, span: Range<usize>) -> Range<usize> {
    let before = text[..span.start].trim_end();
    let after = text[span.end..].trim_start();
    let opener = ["```json", "```JSON", "```"]
        .iter()
        .find(|f| before.ends_with(*f));
    match (opener, after.starts_with("```")) {
        (Some(f), true) => {
            let start = before.len() - f.len();
            let end = text.len() - after.len() + 3;
            start..end
        }
        _ => span,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn brackets_pair_with_strings_and_escapes() {
        let t = br#"{"a": "}\"{", "b": [1, {"c": "]"}]} tail"#;
        assert_eq!(matching_close(t, 0, t.len()), Some(t.len() - 5));
        assert_eq!(matching_close(b"{ ]", 0, 3), None);
        assert_eq!(matching_close(b"{ \"open", 0, 7), None);
    }

    #[test]
    fn think_ranges_cover_reasoning() {
        let t = "a<think>x</think>b<THINK>y";
        let r = think_ranges(t);
        assert_eq!(r, vec![1..17, 18..t.len()]);
        assert_eq!(think_ranges("plan</think>answer"), vec![0..12]);
    }

    #[test]
    fn strips_calls_and_their_fences() {
        let t = "Let me look.\n```json\n{\"name\": \"grep\", \"arguments\": {\"p\": 1}}\n```\n";
        assert_eq!(strip_tool_calls(t, &["grep"]), "Let me look.");
        let t = "ok <tool_call>{\"name\":\"grep\",\"arguments\":{}}</tool_call> done";
        assert_eq!(strip_tool_calls(t, &["grep"]), "ok  done");
        let calls = extract_tool_calls(t, &["grep"]);
        assert_eq!(calls[0].input, json!({}));
    }
}
