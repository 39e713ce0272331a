//! A reply that is only markup: what a small model writes when it imitates the prompt's
//! format instead of answering (`<tools></tools>`, the tool list echoed back, a
//! `<tool_response>` it wrote itself). Such a reply is no answer: the model is asked once
//! more, and if it does it again the run ends saying it has none.

use serde_json::Value;

/// What the model is told after a reply of markup alone.
pub(super) const NUDGE: &str = "Your last reply held only markup (tags or the tool list), \
    no answer. Answer the request in plain words, or call a tool if you need one.";

/// Tags a model copies from the prompt format; a block of one, or a lone tag, is markup.
const TAGS: &[&str] = &[
    "tools",
    "tool_response",
    "tool_call",
    "tool_calls",
    "function_calls",
    "functions",
];

/// Whether `text` says nothing but markup (an empty reply is not this: it is said apart).
/// `tools`: the names of the tools offered; an echoed list must name one of them with its
/// schema (a JSON answer that happens to have a name and a description is an answer).
pub(super) fn only_markup(text: &str, tools: &[&str]) -> bool {
    if text.trim().is_empty() {
        return false;
    }
    let rest = without_tags(text);
    let rest = rest.trim();
    rest.is_empty() || tool_definitions(rest, tools)
}

/// `text` with every block and lone tag of [`TAGS`] taken out.
fn without_tags(text: &str) -> String {
    let mut out = text.to_owned();
    for tag in TAGS {
        let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
        while let Some(start) = out.find(&open) {
            let end = out[start..]
                .find(&close)
                .map_or(start + open.len(), |at| start + at + close.len());
            out.replace_range(start..end, "");
        }
        out = out.replace(&close, "");
    }
    out
}

/// Whether `text` is JSON describing offered tools (the prompt's list echoed), with their
/// schemas, not calling one.
fn tool_definitions(text: &str, tools: &[&str]) -> bool {
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return false;
    };
    let definition = |v: &Value| {
        let v = v.get("function").unwrap_or(v);
        v.get("name")
            .and_then(Value::as_str)
            .is_some_and(|n| tools.contains(&n))
            && (v.get("parameters").is_some() || v.get("input_schema").is_some())
            && v.get("arguments").is_none()
    };
    match &value {
        Value::Array(items) => !items.is_empty() && items.iter().all(definition),
        other => definition(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOOLS: &[&str] = &["glob", "file_read"];

    #[test]
    fn markup_alone_is_no_answer() {
        for text in [
            "<tools></tools>",
            "<tool_response>\n{\"ok\": true}\n</tool_response>",
            "  <tools>\n[{\"name\": \"glob\"}]\n</tools>\n",
            "[{\"type\": \"function\", \"function\": {\"name\": \"glob\", \"description\": \"x\", \"parameters\": {}}}]",
            "{\"name\": \"file_read\", \"description\": \"Reads a file\", \"input_schema\": {}}",
            "</tools>",
        ] {
            assert!(only_markup(text, TOOLS), "{text}");
        }
    }

    #[test]
    fn an_answer_or_nothing_is_not_markup() {
        for text in [
            "",
            "  ",
            "There are 3 files.",
            "<tools></tools> The answer is 3.",
            "Use `<tools>` to list them.",
            "{\"count\": 3}",
            // An answer in JSON that names a tool-like thing is an answer.
            "{\"name\": \"file_read\", \"description\": \"Reads a file\"}",
            "{\"name\": \"paddock\", \"parameters\": {}}",
        ] {
            assert!(!only_markup(text, TOOLS), "{text}");
        }
    }
}
