//! Models often send nested JSON as a string (`"options": "{\"a\":1}"`) or numbers as
//! strings. Where the schema wants an object, array, number or boolean and the model sent a
//! string that parses as one, use the parsed value; everything else is left for validation.

use std::borrow::Cow;

use serde_json::Value;

/// Rewrites `value` in place wherever the schema and a string disagree in a fixable way.
pub fn coerce_to_schema(schema: &Value, value: &mut Value) {
    coerce(schema, value, 0);
}

/// `value` as [`coerce_to_schema`] would leave it, copied only when something changes (most
/// calls need nothing, and a call's input is the history's, not the tool's, to change).
pub fn coerced<'a>(schema: &Value, value: &'a Value) -> Cow<'a, Value> {
    if needs_coercion(schema, value, 0) {
        let mut owned = value.clone();
        coerce(schema, &mut owned, 0);
        Cow::Owned(owned)
    } else {
        Cow::Borrowed(value)
    }
}

/// Whether [`coerce`] would change anything: it walks the same way, read-only.
fn needs_coercion(schema: &Value, value: &Value, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let Value::Object(schema_map) = schema else {
        return false;
    };
    let nested = match value {
        Value::String(s) => {
            return parse_string_as(schema, s).is_some() || branches(schema_map, value, depth);
        }
        Value::Object(obj) => {
            let props = schema_map.get("properties").and_then(Value::as_object);
            let extra = schema_map
                .get("additionalProperties")
                .filter(|e| e.is_object());
            obj.iter()
                .any(|(key, v)| match props.and_then(|p| p.get(key)) {
                    Some(sub) => needs_coercion(sub, v, depth + 1),
                    None => extra.is_some_and(|e| needs_coercion(e, v, depth + 1)),
                })
        }
        Value::Array(items) => schema_map
            .get("items")
            .filter(|i| i.is_object())
            .is_some_and(|i| items.iter().any(|v| needs_coercion(i, v, depth + 1))),
        _ => false,
    };
    nested || branches(schema_map, value, depth)
}

/// Whether the first fitting branch of `anyOf`/`oneOf`/`allOf` would change `value`.
fn branches(schema_map: &serde_json::Map<String, Value>, value: &Value, depth: usize) -> bool {
    ["anyOf", "oneOf", "allOf"].into_iter().any(|key| {
        let Some(Value::Array(list)) = schema_map.get(key) else {
            return false;
        };
        list.iter()
            .find(|b| kind_fits(b, value))
            .is_some_and(|b| needs_coercion(b, value, depth + 1))
    })
}

/// Schemas nest; models' JSON rarely goes this deep, and recursion must stay bounded.
const MAX_DEPTH: usize = 32;

fn coerce(schema: &Value, value: &mut Value, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let Value::Object(schema_map) = schema else {
        return;
    };
    if let Value::String(s) = value
        && let Some(parsed) = parse_string_as(schema, s)
    {
        *value = parsed;
    }
    match value {
        Value::Object(obj) => {
            if let Some(Value::Object(props)) = schema_map.get("properties") {
                for (key, sub) in props {
                    if let Some(v) = obj.get_mut(key) {
                        coerce(sub, v, depth + 1);
                    }
                }
            }
            if let Some(extra @ Value::Object(_)) = schema_map.get("additionalProperties") {
                let props = schema_map.get("properties").and_then(Value::as_object);
                for (key, v) in obj.iter_mut() {
                    if props.is_none_or(|p| !p.contains_key(key)) {
                        coerce(extra, v, depth + 1);
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema @ Value::Object(_)) = schema_map.get("items") {
                for v in items {
                    coerce(item_schema, v, depth + 1);
                }
            }
        }
        _ => {}
    }
    // Option<T> and unions: descend into the first branch that fits the value's kind.
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(branches)) = schema_map.get(key) {
            for branch in branches {
                if kind_fits(branch, value) {
                    coerce(branch, value, depth + 1);
                    break;
                }
            }
        }
    }
}

fn types_of(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => {
            if schema.get("properties").is_some() {
                vec!["object"]
            } else {
                Vec::new()
            }
        }
    }
}

fn kind_fits(schema: &Value, value: &Value) -> bool {
    let types = types_of(schema);
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    types.is_empty()
        || types.contains(&kind)
        || (kind == "integer" && types.contains(&"number"))
        || schema.get("anyOf").is_some()
        || schema.get("oneOf").is_some()
}

/// The value a string stands for, when the schema rejects strings but wants that value.
fn parse_string_as(schema: &Value, s: &str) -> Option<Value> {
    let types = types_of(schema);
    if types.is_empty() || types.contains(&"string") {
        return None;
    }
    let parsed: Value = serde_json::from_str(s.trim()).ok()?;
    let fits = match &parsed {
        Value::Object(_) => types.contains(&"object"),
        Value::Array(_) => types.contains(&"array"),
        Value::Number(n) => {
            types.contains(&"number") || (types.contains(&"integer") && (n.is_i64() || n.is_u64()))
        }
        Value::Bool(_) => types.contains(&"boolean"),
        _ => false,
    };
    fits.then_some(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "limit": {"type": ["integer", "null"]},
                "flag": {"type": "boolean"},
                "options": {
                    "type": "object",
                    "properties": {"depth": {"type": "integer"}}
                },
                "paths": {"type": "array", "items": {"type": "string"}},
                "maybe": {"anyOf": [
                    {"type": "object", "properties": {"n": {"type": "integer"}}},
                    {"type": "null"}
                ]}
            }
        })
    }

    #[test]
    fn stringified_objects_and_arrays_are_parsed() {
        let mut v = json!({
            "options": "{\"depth\": \"3\"}",
            "paths": "[\"a\", \"b\"]",
            "maybe": {"n": "7"}
        });
        coerce_to_schema(&schema(), &mut v);
        assert_eq!(
            v,
            json!({"options": {"depth": 3}, "paths": ["a", "b"], "maybe": {"n": 7}})
        );
    }

    #[test]
    fn whole_input_as_a_string_is_parsed() {
        let mut v = json!("{\"name\": \"x\", \"limit\": \"5\", \"flag\": \"true\"}");
        coerce_to_schema(&schema(), &mut v);
        assert_eq!(v, json!({"name": "x", "limit": 5, "flag": true}));
    }

    #[test]
    fn strings_that_should_stay_strings_are_left_alone() {
        let mut v = json!({"name": "{\"not\": \"parsed\"}", "limit": "many", "options": "nope"});
        let before = v.clone();
        coerce_to_schema(&schema(), &mut v);
        assert_eq!(v, before);
    }

    /// The read-only check agrees with the rewrite: a copy is made exactly when it changes.
    #[test]
    fn coerced_copies_only_what_changes() {
        for v in [
            json!({"options": "{\"depth\": \"3\"}"}),
            json!({"paths": "[\"a\", \"b\"]"}),
            json!({"maybe": {"n": "7"}}),
            json!({"maybe": null}),
            json!("{\"name\": \"x\", \"limit\": \"5\"}"),
            json!({"name": "{\"not\": \"parsed\"}", "limit": "many", "options": "nope"}),
            json!({"name": "x", "limit": 5, "flag": true, "paths": ["a"]}),
            json!({"limit": "2.5"}),
            json!({"options": {"depth": "4"}}),
            json!({"unknown": "1"}),
        ] {
            let mut rewritten = v.clone();
            coerce_to_schema(&schema(), &mut rewritten);
            let out = coerced(&schema(), &v);
            assert_eq!(*out, rewritten, "{v}");
            assert_eq!(matches!(out, Cow::Owned(_)), rewritten != v, "{v}");
        }
    }

    #[test]
    fn non_integer_number_is_not_forced_into_an_integer() {
        let mut v = json!({"limit": "2.5"});
        coerce_to_schema(&schema(), &mut v);
        assert_eq!(v, json!({"limit": "2.5"}));
    }
}
