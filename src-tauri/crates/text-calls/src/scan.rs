//! Finding JSON values in free text: a string-aware bracket scan that tolerates prose
//! braces and stray quotes, spends a bounded amount of work, and recognises a call whose
//! JSON does not parse (a missing comma, a cut-off reply) by its top-level keys.

use std::ops::Range;

use serde_json::Value;

use super::envelope::{ARGUMENT_KEYS, DEFINITION_KEY};

/// Work left for one extraction, in bytes visited. Adversarial text (thousands of
/// unclosed `{"`) would otherwise make the scan quadratic; once spent, scanning stops
/// with what was found.
#[derive(Debug)]
pub(super) struct Budget(usize);

impl Budget {
    pub fn new(steps: usize) -> Self {
        Self(steps)
    }

    /// Takes `n` steps; false (and nothing left) when they are not there.
    fn take(&mut self, n: usize) -> bool {
        if n > self.0 {
            self.0 = 0;
            return false;
        }
        self.0 -= n;
        true
    }

    pub fn is_spent(&self) -> bool {
        self.0 == 0
    }
}

/// Successive occurrences of one needle, each search resuming where the last stopped:
/// asked with positions that never go back, a whole pass stays linear however many
/// markers a text holds.
pub(super) struct Next<'a> {
    text: &'a str,
    needle: &'a str,
    /// The last answer: `Some(None)` means none at or after the last position asked.
    found: Option<Option<usize>>,
}

impl<'a> Next<'a> {
    pub fn new(text: &'a str, needle: &'a str) -> Self {
        Self {
            text,
            needle,
            found: None,
        }
    }

    /// The first occurrence at or after `from` (which must not be before an earlier one).
    pub fn at_or_after(&mut self, from: usize) -> Option<usize> {
        match self.found {
            Some(None) => return None,
            Some(Some(p)) if p >= from => return Some(p),
            _ => {}
        }
        let found = self
            .text
            .get(from..)
            .and_then(|rest| rest.find(self.needle))
            .map(|i| from + i);
        self.found = Some(found);
        found
    }
}

/// How the bracket at a position ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Close {
    /// Just past the matching bracket.
    At(usize),
    /// A closing bracket of the wrong kind: not JSON.
    Mismatch,
    /// Still open at the limit (a cut-off reply), or the budget ran out.
    Open,
}

/// Where the bracket at `start` closes, tracking strings and escapes.
pub(super) fn matching_close(
    bytes: &[u8],
    start: usize,
    limit: usize,
    budget: &mut Budget,
) -> Close {
    let mut stack = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    let limit = limit.min(bytes.len());
    let mut outcome = Close::Open;
    let mut i = start;
    while i < limit {
        let b = bytes[i];
        i += 1;
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
                    outcome = Close::Mismatch;
                    break;
                }
                if stack.is_empty() {
                    outcome = Close::At(i);
                    break;
                }
            }
            _ => {}
        }
    }
    if budget.take(i - start) {
        outcome
    } else {
        Close::Open
    }
}

/// Parses `text[range]` as JSON, paying for it.
pub(super) fn parse(text: &str, range: Range<usize>, budget: &mut Budget) -> Option<Value> {
    if !budget.take(range.len()) {
        return None;
    }
    serde_json::from_str(&text[range]).ok()
}

/// A JSON value found in text, or the remains of a call that does not parse.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Piece {
    Value(Range<usize>, Value),
    /// An object naming a known tool whose JSON is broken: the tool's name.
    Broken(Range<usize>, String),
}

/// Whether the bracket at `i` can start a JSON object or an array of objects: `{` then
/// `"` or `}`, `[` then `{`. Prose braces (`{a, b}`, `{{`) are passed over at once.
fn starts_json(bytes: &[u8], i: usize, end: usize) -> bool {
    let want: &[u8] = match bytes[i] {
        b'{' => b"\"}",
        b'[' => b"{",
        _ => return false,
    };
    let next = skip_ws(bytes, i + 1, end);
    next < end && want.contains(&bytes[next])
}

pub(super) fn skip_ws(bytes: &[u8], mut i: usize, end: usize) -> usize {
    while i < end && bytes[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// Every top-level JSON object or array in `text[range]` that parses, and every object
/// that does not parse but is recognisably a call of a `known` tool ([`broken_call`];
/// `marked`: the text is inside a tool-call marker, so the arguments may be missing).
/// A bracket that starts nothing is stepped over by one character, so prose braces and
/// stray quotes before a call cannot swallow it.
pub(super) fn json_values(
    text: &str,
    range: Range<usize>,
    known: &[&str],
    marked: bool,
    budget: &mut Budget,
) -> Vec<Piece> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = range.start;
    while i < range.end && !budget.is_spent() {
        if !starts_json(bytes, i, range.end) {
            i += 1;
            continue;
        }
        match matching_close(bytes, i, range.end, budget) {
            Close::At(end) => {
                if let Some(v) = parse(text, i..end, budget) {
                    out.push(Piece::Value(i..end, v));
                    i = end;
                    continue;
                }
                if let Some(name) = broken_call(&text[i..end], known, marked) {
                    out.push(Piece::Broken(i..end, name));
                    i = end;
                    continue;
                }
            }
            Close::Open => {
                // Cut off (the model hit its output limit mid-call): nothing after it.
                if let Some(name) = broken_call(&text[i..range.end], known, marked) {
                    out.push(Piece::Broken(i..range.end, name));
                    break;
                }
            }
            Close::Mismatch => {}
        }
        i += 1;
    }
    out
}

/// The end of the JSON string whose opening quote is at `start` (just past the closing
/// quote), and its raw content; `None` when it never closes.
fn read_string(text: &str, start: usize) -> Option<(&str, usize)> {
    let bytes = text.as_bytes();
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate().skip(start + 1) {
        match b {
            _ if escaped => escaped = false,
            b'\\' => escaped = true,
            b'"' => return Some((&text[start + 1..i], i + 1)),
            _ => {}
        }
    }
    None
}

/// Reads the keys of an object that is not valid JSON: when it names a `known` tool
/// (`"name"` at the top level, or inside a `"function"` object) and says where its
/// arguments are (an argument key is present, not needed when `marked`), it is a call
/// whose arguments cannot be used. Tool definitions (with a `"description"`) are not.
pub(super) fn broken_call(span: &str, known: &[&str], marked: bool) -> Option<String> {
    let bytes = span.as_bytes();
    if bytes.first() != Some(&b'{') {
        return None;
    }
    let mut depth = 0usize;
    let mut last_top_key = String::new();
    let mut in_function = false;
    let mut name = None;
    let mut has_args = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' | b'[' => {
                depth += 1;
                if depth == 2 {
                    in_function = last_top_key == "function" && bytes[i] == b'{';
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let Some((s, next)) = read_string(span, i) else {
                    break;
                };
                let colon = skip_ws(bytes, next, bytes.len());
                let counts = depth == 1 || (depth == 2 && in_function);
                if counts && bytes.get(colon) == Some(&b':') {
                    if depth == 1 {
                        s.clone_into(&mut last_top_key);
                    }
                    if s == DEFINITION_KEY {
                        return None;
                    }
                    has_args |= ARGUMENT_KEYS.contains(&s);
                    let value = skip_ws(bytes, colon + 1, bytes.len());
                    if s == "name"
                        && bytes.get(value) == Some(&b'"')
                        && let Some((v, after)) = read_string(span, value)
                    {
                        name = Some(v.trim().to_owned());
                        i = after;
                        continue;
                    }
                }
                i = next;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    let name = name.filter(|n| super::accepts(known, n))?;
    (has_args || marked).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn close(t: &[u8]) -> Close {
        matching_close(t, 0, t.len(), &mut Budget::new(usize::MAX))
    }

    #[test]
    fn brackets_pair_with_strings_and_escapes() {
        let t = br#"{"a": "}\"{", "b": [1, {"c": "]"}]} tail"#;
        assert_eq!(close(t), Close::At(t.len() - 5));
        assert_eq!(close(b"{ ]"), Close::Mismatch);
        assert_eq!(close(b"{ \"open"), Close::Open);
    }

    #[test]
    fn next_resumes_its_search() {
        let mut next = Next::new("a.b.c", ".");
        assert_eq!(next.at_or_after(0), Some(1));
        assert_eq!(next.at_or_after(1), Some(1));
        assert_eq!(next.at_or_after(2), Some(3));
        assert_eq!(next.at_or_after(4), None);
        assert_eq!(next.at_or_after(5), None);
    }

    #[test]
    fn a_spent_budget_stops_the_scan() {
        let t = b"{\"a\": 1}";
        let mut budget = Budget::new(3);
        assert_eq!(matching_close(t, 0, t.len(), &mut budget), Close::Open);
        assert!(budget.is_spent());
        let values = json_values("{\"a\": 1}", 0..8, &[], false, &mut Budget::new(0));
        assert!(values.is_empty());
    }

    #[test]
    fn values_and_broken_calls_are_found() {
        let known = ["grep"];
        let t = r#"x {"a": 1} {"name": "grep", "arguments": {"p": 1,}} {"name": "grep", "arguments": {"#;
        let got = json_values(t, 0..t.len(), &known, false, &mut Budget::new(usize::MAX));
        assert_eq!(
            got,
            vec![
                Piece::Value(2..10, json!({"a": 1})),
                Piece::Broken(11..51, "grep".into()),
                Piece::Broken(52..t.len(), "grep".into()),
            ]
        );
    }

    #[test]
    fn broken_calls_need_a_known_name_and_arguments() {
        let known = ["grep"];
        assert_eq!(
            broken_call(r#"{"name": "grep" "arguments": {}}"#, &known, false),
            Some("grep".into())
        );
        assert_eq!(
            broken_call(
                r#"{"function": {"name": "grep", "arguments": "x}"#,
                &known,
                false
            ),
            Some("grep".into())
        );
        assert_eq!(broken_call(r#"{"name": "grep",}"#, &known, false), None);
        assert_eq!(
            broken_call(r#"{"name": "grep",}"#, &known, true),
            Some("grep".into())
        );
        assert_eq!(
            broken_call(r#"{"name": "rm", "arguments": {},}"#, &known, false),
            None
        );
        assert_eq!(
            broken_call(
                r#"{"result": {"name": "grep", "arguments": {}},}"#,
                &known,
                false
            ),
            None,
            "a name nested in other data is not a call"
        );
        assert_eq!(
            broken_call(
                r#"{"name": "grep", "description": "Search", "parameters": {},}"#,
                &known,
                false
            ),
            None,
            "a tool definition is not a call"
        );
    }
}
