//! Structured output: ask for JSON matching a schema, find the JSON in the answer, check it.

use serde_json::Value;

/// Errors listed back to the model on a failed attempt.
const MAX_REPORTED_ERRORS: usize = 10;

/// The system-prompt addition that asks for JSON only.
pub fn instruction(schema: &Value) -> String {
    let pretty = serde_json::to_string_pretty(schema).unwrap_or_else(|_| schema.to_string());
    format!(
        "Your final answer must be a single JSON value that conforms to the JSON schema below. \
         Reply with the JSON only: no explanation, no code fences.\n\nJSON schema:\n{pretty}"
    )
}

/// Finds JSON in a model's answer: the whole text, a ```json fence, any fence, then the span
/// from the first `{` to the last `}` (or `[` to `]`).
pub fn extract_json(text: &str) -> Option<Value> {
    let trimmed = text.trim();
    if let Ok(v) = serde_json::from_str(trimmed) {
        return Some(v);
    }
    if let Some(v) = fenced(trimmed, true).and_then(|s| serde_json::from_str(s).ok()) {
        return Some(v);
    }
    if let Some(v) = fenced(trimmed, false).and_then(|s| serde_json::from_str(s).ok()) {
        return Some(v);
    }
    for (open, close) in [('{', '}'), ('[', ']')] {
        if let (Some(start), Some(end)) = (trimmed.find(open), trimmed.rfind(close))
            && start < end
            && let Ok(v) = serde_json::from_str(&trimmed[start..=end])
        {
            return Some(v);
        }
    }
    None
}

/// The body of the first fenced block; with `json_only`, only a block tagged `json`.
fn fenced(text: &str, json_only: bool) -> Option<&str> {
    let mut rest = text;
    while let Some(start) = rest.find("```") {
        let after = &rest[start + 3..];
        let line_end = after.find('\n')?;
        let tag = after[..line_end].trim();
        let body_and_more = &after[line_end + 1..];
        let end = body_and_more.find("```")?;
        if !json_only || tag.eq_ignore_ascii_case("json") {
            return Some(body_and_more[..end].trim());
        }
        rest = &body_and_more[end + 3..];
    }
    None
}

/// Why an answer did not pass.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OutputError {
    #[error("the output schema itself is invalid: {0}")]
    BadSchema(String),
    #[error("no JSON value was found in the answer")]
    NoJson,
    #[error("the JSON does not match the schema:\n{}", .0.join("\n"))]
    Invalid(Vec<String>),
}

/// Whether `schema` is a JSON schema at all: checked before anything is asked of the model.
pub fn check_schema(schema: &Value) -> Result<(), OutputError> {
    jsonschema::validator_for(schema)
        .map(drop)
        .map_err(|e| OutputError::BadSchema(e.to_string()))
}

/// Extracts and validates; returns the value or what was wrong with it.
pub fn parse_and_validate(text: &str, schema: &Value) -> Result<Value, OutputError> {
    let validator =
        jsonschema::validator_for(schema).map_err(|e| OutputError::BadSchema(e.to_string()))?;
    let value = extract_json(text).ok_or(OutputError::NoJson)?;
    let errors: Vec<String> = validator
        .iter_errors(&value)
        .take(MAX_REPORTED_ERRORS)
        .map(|e| {
            let path = e.instance_path().to_string();
            let at = if path.is_empty() {
                "(root)".to_owned()
            } else {
                path
            };
            format!("- at {at}: {e}")
        })
        .collect();
    if errors.is_empty() {
        Ok(value)
    } else {
        Err(OutputError::Invalid(errors))
    }
}

/// The message sent back after a failed attempt.
pub fn retry_message(error: &OutputError) -> String {
    format!(
        "Your answer could not be used: {error}\nReply again with only the corrected JSON value."
    )
}
