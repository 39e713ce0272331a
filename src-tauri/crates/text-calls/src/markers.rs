//! Calls written inside the markers chat templates define, which say "this is a call"
//! outright: Hermes `<tool_call>` tags (JSON, or Qwen3-Coder's XML inside them), bare
//! Qwen3-Coder `<function=...>` blocks, Mistral's `[TOOL_CALLS]` and Llama 3's
//! `<|python_tag|>`. Inside a marker a call may omit its arguments.

use std::ops::Range;

use serde_json::{Map, Value};

use super::envelope::{Shape, calls_in};
use super::scan::{Budget, Close, Next, Piece, json_values, matching_close, parse, skip_ws};
use super::{Found, Scope, accepts, xml};

const OPEN_TAG: &str = "<tool_call>";
const CLOSE_TAG: &str = "</tool_call>";
const MISTRAL: &str = "[TOOL_CALLS]";
const MISTRAL_CALL_ID: &str = "[CALL_ID]";
const MISTRAL_ARGS: &str = "[ARGS]";
const PYTHON_TAG: &str = "<|python_tag|>";
/// Llama 3's end-of-message tokens, which may follow a `<|python_tag|>` call.
const LLAMA_ENDS: [&str; 2] = ["<|eom_id|>", "<|eot_id|>"];

/// Every marked call in the scope, in no particular order.
pub(super) fn all(scope: &Scope<'_>, budget: &mut Budget) -> Vec<Found> {
    let (mut calls, tags) = hermes(scope, budget);
    let outside_tags = |at: usize| !tags.iter().any(|t| t.contains(&at));
    calls.extend(
        xml::functions(scope, scope.from..scope.text.len(), None)
            .into_iter()
            .filter(|c| outside_tags(c.span.start)),
    );
    calls.extend(
        mistral(scope, budget)
            .into_iter()
            .filter(|c| outside_tags(c.span.start)),
    );
    calls.extend(
        llama(scope, budget)
            .into_iter()
            .filter(|c| outside_tags(c.span.start)),
    );
    calls
}

/// Each occurrence of `marker` in the searchable part of the text.
fn occurrences<'a>(scope: &'a Scope<'_>, marker: &'a str) -> impl Iterator<Item = usize> + 'a {
    scope.text[scope.from..]
        .match_indices(marker)
        .map(|(i, _)| scope.from + i)
        .filter(|&at| scope.allowed(at))
}

/// The calls of JSON pieces found inside a marker, all spanning `span`.
fn from_pieces(pieces: Vec<Piece>, known: &[&str], span: &Range<usize>) -> Vec<Found> {
    let mut out = Vec::new();
    for piece in pieces {
        match piece {
            Piece::Value(at, v) => out.extend(calls_in(&v, known, true).into_iter().map(
                |(name, input, shape)| {
                    Found::new(name, input, span.clone(), shape).written_at(at.clone())
                },
            )),
            Piece::Broken(at, name) => out.push(Found::broken(name, span.clone(), at)),
        }
    }
    out
}

/// Hermes `<tool_call>...</tool_call>`, holding JSON (one call, several, or a list) or
/// Qwen3-Coder's XML. A missing closing tag (the model stopped at it) runs to the next
/// opening tag or the end. Also returns the tags' spans.
fn hermes(scope: &Scope<'_>, budget: &mut Budget) -> (Vec<Found>, Vec<Range<usize>>) {
    let text = scope.text;
    let mut calls = Vec::new();
    let mut tags = Vec::new();
    let (mut opens, mut closes) = (Next::new(text, OPEN_TAG), Next::new(text, CLOSE_TAG));
    let mut from = scope.from;
    while let Some(start) = opens.at_or_after(from) {
        let body_start = start + OPEN_TAG.len();
        let (body_end, end) = match (
            closes.at_or_after(body_start),
            opens.at_or_after(body_start),
        ) {
            (Some(c), next) if next.is_none_or(|n| c < n) => (c, c + CLOSE_TAG.len()),
            (_, Some(n)) => (n, n),
            _ => (text.len(), text.len()),
        };
        from = end.max(body_start);
        if !scope.allowed(start) {
            continue;
        }
        let span = start..end;
        tags.push(span.clone());
        if text[body_start..body_end].contains(xml::FUNCTION) {
            calls.extend(xml::functions(scope, body_start..body_end, Some(span)));
            continue;
        }
        let pieces = json_values(text, body_start..body_end, scope.known, true, budget);
        calls.extend(from_pieces(pieces, scope.known, &span));
    }
    (calls, tags)
}

/// Mistral's `[TOOL_CALLS]`: followed by a JSON list of calls (tokenizers before v11,
/// Magistral), or by `name{args}` (v11), `name[ARGS]{args}` (v13: Mistral Small 3.2,
/// Devstral) or `name[CALL_ID]id[ARGS]{args}` (Mistral Small 3.1). Several calls
/// repeat the marker.
fn mistral(scope: &Scope<'_>, budget: &mut Budget) -> Vec<Found> {
    let text = scope.text;
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    for at in occurrences(scope, MISTRAL) {
        let start = skip_ws(bytes, at + MISTRAL.len(), bytes.len());
        if matches!(bytes.get(start), Some(b'[' | b'{')) {
            let end = match matching_close(bytes, start, bytes.len(), budget) {
                Close::At(end) => end,
                Close::Open | Close::Mismatch => bytes.len(),
            };
            let pieces = json_values(text, start..end, scope.known, true, budget);
            out.extend(from_pieces(pieces, scope.known, &(at..end)));
            continue;
        }
        let name_end = start
            + text[start..]
                .bytes()
                .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
                .count();
        let name = &text[start..name_end];
        if !accepts(scope.known, name) {
            continue;
        }
        let mut i = name_end;
        if text[i..].starts_with(MISTRAL_CALL_ID) {
            i += MISTRAL_CALL_ID.len();
            i += text[i..]
                .bytes()
                .take_while(u8::is_ascii_alphanumeric)
                .count();
        }
        if text[i..].starts_with(MISTRAL_ARGS) {
            i += MISTRAL_ARGS.len();
        }
        let args_at = skip_ws(bytes, i, bytes.len());
        let (input, end) = object_at(text, args_at, budget);
        out.push(match input {
            Some(args) => Found::new(name.to_owned(), args, at..end, Shape::Whole),
            None => Found::broken(
                name.to_owned(),
                at..end.max(name_end),
                args_at.min(end)..end,
            ),
        });
    }
    out
}

/// The JSON object starting at `start` and where it ends; `None` (and the end of what
/// was looked at) when there is none or it does not parse.
fn object_at(text: &str, start: usize, budget: &mut Budget) -> (Option<Value>, usize) {
    let bytes = text.as_bytes();
    if bytes.get(start) != Some(&b'{') {
        return (None, start);
    }
    match matching_close(bytes, start, bytes.len(), budget) {
        Close::At(end) => match parse(text, start..end, budget) {
            Some(v @ Value::Object(_)) => (Some(v), end),
            _ => (None, end),
        },
        Close::Open | Close::Mismatch => (None, bytes.len()),
    }
}

/// Llama 3.x `<|python_tag|>`: JSON calls (`{"name": ..., "parameters": ...}`, several
/// separated by `;`), or a built-in tool call `name.call(key="value", n=1)`. The call
/// runs to the end-of-message token, the next tag or the end.
fn llama(scope: &Scope<'_>, budget: &mut Budget) -> Vec<Found> {
    let text = scope.text;
    let mut out = Vec::new();
    let mut ends: Vec<(Next<'_>, usize)> = LLAMA_ENDS
        .iter()
        .map(|e| (Next::new(text, e), e.len()))
        .collect();
    let mut tags = Next::new(text, PYTHON_TAG);
    for at in occurrences(scope, PYTHON_TAG) {
        let body_start = at + PYTHON_TAG.len();
        let stop = ends
            .iter_mut()
            .filter_map(|(next, len)| next.at_or_after(body_start).map(|i| (i, i + *len)))
            .chain(tags.at_or_after(body_start).map(|i| (i, i)))
            .min();
        let (body_end, end) = stop.unwrap_or((text.len(), text.len()));
        let body = text[body_start..body_end].trim_start();
        if body.starts_with(['{', '[']) {
            let pieces = json_values(text, body_start..body_end, scope.known, true, budget);
            out.extend(from_pieces(pieces, scope.known, &(at..end)));
            continue;
        }
        if let Some((name, args)) = builtin_call(body)
            && accepts(scope.known, &name)
        {
            out.push(match args {
                Some(args) => Found::new(name, Value::Object(args), at..end, Shape::Whole),
                None => Found::broken(name, at..end, body_start..body_end),
            });
        }
    }
    out
}

/// `name.call(key=value, ...)`: the name, and the arguments when every value reads
/// (double- or single-quoted strings, numbers, true/false/True/False, null/None).
fn builtin_call(s: &str) -> Option<(String, Option<Map<String, Value>>)> {
    let ident = |s: &str| {
        s.bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count()
    };
    let n = ident(s);
    if n == 0 || s.as_bytes()[0].is_ascii_digit() {
        return None;
    }
    let name = s[..n].to_owned();
    let rest = s[n..].trim_start().strip_prefix(".call")?.trim_start();
    let mut rest = rest.strip_prefix('(')?;
    let mut args = Map::new();
    loop {
        rest = rest.trim_start();
        if rest.starts_with(')') {
            return Some((name, Some(args)));
        }
        let k = ident(rest);
        let after_eq = match rest[k..].trim_start().strip_prefix('=') {
            Some(after) if k > 0 => after,
            _ => return Some((name, None)),
        };
        let key = rest[..k].to_owned();
        let Some((value, after)) = literal(after_eq.trim_start()) else {
            return Some((name, None));
        };
        args.insert(key, value);
        rest = after.trim_start();
        rest = rest.strip_prefix(',').unwrap_or(rest);
    }
}

/// One Python-ish literal at the start of `s`, and what follows it.
fn literal(s: &str) -> Option<(Value, &str)> {
    let quote = s.chars().next()?;
    if quote == '"' || quote == '\'' {
        let mut escaped = false;
        for (i, c) in s.char_indices().skip(1) {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                c if c == quote => {
                    let raw = &s[1..i];
                    let value = if quote == '"' {
                        serde_json::from_str::<Value>(&s[..=i]).ok()?
                    } else {
                        Value::String(raw.replace("\\'", "'"))
                    };
                    return Some((value, &s[i + 1..]));
                }
                _ => {}
            }
        }
        return None;
    }
    let end = s.find([',', ')']).unwrap_or(s.len());
    let token = s[..end].trim();
    let value = match token {
        "True" | "true" => Value::Bool(true),
        "False" | "false" => Value::Bool(false),
        "None" | "null" => Value::Null,
        t => match serde_json::from_str::<Value>(t) {
            Ok(v @ Value::Number(_)) => v,
            _ => return None,
        },
    };
    Some((value, &s[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn builtin_calls_read_python_literals() {
        let (name, args) = builtin_call(
            r#"brave_search.call(query="rust \"serde\"", n=3, safe=True, lang='en', x=None)"#,
        )
        .unwrap();
        assert_eq!(name, "brave_search");
        assert_eq!(
            Value::Object(args.unwrap()),
            json!({"query": "rust \"serde\"", "n": 3, "safe": true, "lang": "en", "x": null})
        );
        assert_eq!(
            builtin_call("get_time.call()"),
            Some(("get_time".into(), Some(Map::new())))
        );
        assert_eq!(
            builtin_call("grep.call(pattern=oops)"),
            Some(("grep".into(), None))
        );
        assert_eq!(builtin_call("grep(pattern='x')"), None);
        assert_eq!(builtin_call("9x.call()"), None);
    }
}
