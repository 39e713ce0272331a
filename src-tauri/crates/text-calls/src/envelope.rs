//! What counts as a call in a parsed JSON value: `{"name", "arguments"}` with the
//! argument aliases models use, the OpenAI `{"type": "function", "function": {...}}`
//! wrapper, or an array of either.

use serde_json::{Map, Value};

/// Keys a call's arguments go under, in the order they are tried; a null one falls
/// through to the next (`arguments` is OpenAI's and Hermes', `parameters` Llama 3's,
/// `input` Anthropic's).
pub(super) const ARGUMENT_KEYS: [&str; 3] = ["arguments", "parameters", "input"];

/// A tool *definition* (what a model may echo when it explains its tools) carries a
/// description; a call never does.
pub(super) const DEFINITION_KEY: &str = "description";

/// Whether a call's arguments could be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    Whole,
    /// Arguments that are not an object or do not parse: the call runs with `{}`, so the
    /// model gets a validation error it can fix instead of a turn that silently ends.
    Broken,
}

/// A call read from JSON: the tool, its input and whether the input was usable.
pub(super) type Call = (String, Value, Shape);

/// The calls a parsed JSON value holds. `marked`: the value sits inside a tool-call
/// marker, so a call may leave its arguments out; bare JSON in prose must name them.
pub(super) fn calls_in(value: &Value, known: &[&str], marked: bool) -> Vec<Call> {
    match value {
        Value::Array(items) => items
            .iter()
            .filter(|v| v.is_object())
            .flat_map(|v| calls_in(v, known, marked))
            .collect(),
        Value::Object(obj) => call_in(obj, known, marked).into_iter().collect(),
        _ => Vec::new(),
    }
}

fn call_in(obj: &Map<String, Value>, known: &[&str], marked: bool) -> Option<Call> {
    // The wrapper's name wins over a top-level one; its arguments are looked for first.
    let wrapped = match obj.get("function") {
        Some(Value::Object(f)) if f.get("name").is_some_and(Value::is_string) => Some(f),
        _ => None,
    };
    let envelope = wrapped.unwrap_or(obj);
    let name = envelope.get("name")?.as_str()?.trim();
    if !super::accepts(known, name) || envelope.contains_key(DEFINITION_KEY) {
        return None;
    }
    // `"type": "function"` says "a call" the way the OpenAI wire format does, so such a
    // call may leave its arguments out like a marked one (a tool without parameters).
    let typed = obj.get("type").and_then(Value::as_str) == Some("function");
    let layers: Vec<&Map<String, Value>> = match wrapped {
        Some(inner) => vec![inner, obj],
        None => vec![obj],
    };
    let named = layers
        .iter()
        .any(|m| ARGUMENT_KEYS.iter().any(|k| m.contains_key(*k)));
    let arguments = layers
        .iter()
        .flat_map(|m| ARGUMENT_KEYS.iter().filter_map(|k| m.get(*k)))
        .find(|v| !v.is_null());
    let (input, shape) = match arguments {
        Some(Value::Object(args)) => (Value::Object(args.clone()), Shape::Whole),
        Some(Value::Array(items)) => one_object(items),
        // The OpenAI wire format encodes arguments as a JSON string; models copy that.
        Some(Value::String(s)) if s.trim().is_empty() => (empty(), Shape::Whole),
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(v @ Value::Object(_)) => (v, Shape::Whole),
            Ok(Value::Array(items)) => one_object(&items),
            _ => (empty(), Shape::Broken),
        },
        Some(_) => (empty(), Shape::Broken),
        // Every argument key null, or none in a marked call: a call without arguments.
        None if named || marked || typed => (empty(), Shape::Whole),
        // Bare JSON without arguments is data that happens to have a "name".
        None => return None,
    };
    Some((name.to_owned(), input, shape))
}

/// Arguments a small model wrapped in an array (`"arguments": [{"todos": …}]`): one object
/// is taken as the arguments; anything else is broken.
fn one_object(items: &[Value]) -> (Value, Shape) {
    match items {
        [only @ Value::Object(_)] => (only.clone(), Shape::Whole),
        _ => (empty(), Shape::Broken),
    }
}

fn empty() -> Value {
    Value::Object(Map::new())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const KNOWN: &[&str] = &["grep", "glob"];

    fn one(v: Value, marked: bool) -> Option<Call> {
        let mut calls = calls_in(&v, KNOWN, marked);
        assert!(calls.len() <= 1);
        calls.pop()
    }

    /// Issue 52: a real 1.5B model sent `"arguments": [{"todos": …}]`; the tool got `{}`.
    #[test]
    fn arguments_wrapped_in_a_one_element_array_are_unwrapped() {
        let got = one(json!({"name": "grep", "arguments": [{"p": 1}]}), false);
        assert_eq!(got, Some(("grep".into(), json!({"p": 1}), Shape::Whole)));
        let got = one(json!({"name": "grep", "arguments": "[{\"p\": 2}]"}), false);
        assert_eq!(got, Some(("grep".into(), json!({"p": 2}), Shape::Whole)));
        let got = one(
            json!({"name": "grep", "arguments": [{"p": 1}, {"p": 2}]}),
            false,
        );
        assert_eq!(got, Some(("grep".into(), json!({}), Shape::Broken)));
    }

    #[test]
    fn aliases_fall_through_nulls_in_order() {
        let got = one(
            json!({"name": "grep", "arguments": null, "parameters": {"p": 1}, "input": {"p": 2}}),
            false,
        );
        assert_eq!(got, Some(("grep".into(), json!({"p": 1}), Shape::Whole)));
        let got = one(json!({"name": "grep", "input": {"p": 3}}), false);
        assert_eq!(got, Some(("grep".into(), json!({"p": 3}), Shape::Whole)));
        let got = one(json!({"name": "grep", "arguments": null}), false);
        assert_eq!(got, Some(("grep".into(), json!({}), Shape::Whole)));
    }

    #[test]
    fn the_wrapper_name_wins_and_string_arguments_are_decoded() {
        let got = one(
            json!({"name": "glob", "type": "function",
                   "function": {"name": "grep", "arguments": "{\"p\": 1}"}}),
            false,
        );
        assert_eq!(got, Some(("grep".into(), json!({"p": 1}), Shape::Whole)));
        let got = one(
            json!({"function": {"name": "grep"}, "arguments": {"p": 2}}),
            false,
        );
        assert_eq!(got, Some(("grep".into(), json!({"p": 2}), Shape::Whole)));
    }

    #[test]
    fn unusable_arguments_make_a_broken_call() {
        for args in [json!(["x"]), json!("not json"), json!("[1]"), json!(7)] {
            let got = one(json!({"name": "grep", "arguments": args}), false);
            assert_eq!(
                got,
                Some(("grep".into(), json!({}), Shape::Broken)),
                "{args}"
            );
        }
    }

    #[test]
    fn what_is_not_a_call() {
        assert_eq!(one(json!({"name": "grep"}), false), None);
        assert_eq!(
            one(json!({"name": "grep"}), true),
            Some(("grep".into(), json!({}), Shape::Whole))
        );
        assert_eq!(one(json!({"name": "rm", "arguments": {}}), true), None);
        assert_eq!(
            one(
                json!({"name": "grep", "description": "Search", "parameters": {"type": "object"}}),
                true
            ),
            None
        );
        assert_eq!(one(json!({"name": 3, "arguments": {}}), true), None);
    }
}
