//! Models often send nested JSON as a string (`"options": "{\"a\":1}"`) or numbers as
//! strings. Where the schema wants an object, array, number or boolean and the model sent a
//! string that parses as one, use the parsed value; everything else is left for validation.

use serde_json::Value;

/// Rewrites `value` in place wherever the schema and a string disagree in a fixable way.
pub fn coerce_to_schema(schema: &Value, value: &mut Value) {
    coerce(schema, value, 0);
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
    if let Value::String(s) = value {
        if let Some(parsed) = parse_string_as(schema, s) {
            *value = parsed;
        }
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

    #[test]
    fn non_integer_number_is_not_forced_into_an_integer() {
        let mut v = json!({"limit": "2.5"});
        coerce_to_schema(&schema(), &mut v);
        assert_eq!(v, json!({"limit": "2.5"}));
    }
}
