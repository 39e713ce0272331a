//! Chat Completions bodies for servers that take no `tools` parameter: the tools are
//! described in the system prompt in the Hermes format small open models were trained on
//! (Qwen 2.5's own chat template writes exactly this), calls go back as `<tool_call>` text
//! in the assistant's turn and results as `<tool_response>` text in a user turn, so a
//! server without any tool support renders the conversation the way the model expects.
//! The text reader takes the model's calls back out of its replies.

use paddock_core::ModelRequest;
use paddock_protocol::{ContentBlock, Message, Role, ToolSpec};
use serde_json::{Map, Value, json};

use paddock_text_calls::strip_tool_calls;

/// How the tools are introduced, then listed one JSON object a line in `<tools>`.
const TOOLS_INTRO: &str = "# Tools\n\nYou may call one or more functions to assist with \
     the user query.\n\nYou are provided with function signatures within <tools></tools> \
     XML tags:\n<tools>\n";

/// How to call, after the list.
const TOOLS_OUTRO: &str = "</tools>\n\nFor each function call, return a json object with \
     function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n\
     {\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>\n\nCall \
     only the functions listed above, with their exact names. After a call, wait for its \
     <tool_response>. When the task is done, answer in plain words without a tool call.";

/// What small models most often get wrong: answering about files they never looked at.
const GROUNDING: &str = "\n\nYou cannot see the files: what exists, what a file holds and \
     what a command prints are known only from a <tool_response>. Call a tool first; never \
     guess a name, a number or a content.";

/// Tools a worked example may show, with arguments any workspace makes sense of.
const EXAMPLES: &[(&str, &str)] = &[
    ("file_read", r#"{"path": "README.md"}"#),
    ("glob", r#"{"pattern": "**/*.txt"}"#),
    ("bash", r#"{"command": "ls"}"#),
];

/// A description longer than this is cut at a sentence: small models follow a short
/// line better than a paragraph, and every call pays for the prompt again.
const MAX_DESCRIPTION: usize = 240;

/// A streamed body with the tools in the system prompt and none in `tools`.
pub(crate) fn body(req: &ModelRequest<'_>) -> Value {
    let mut system = req.system.unwrap_or_default().trim_end().to_owned();
    if !system.is_empty() {
        system.push_str("\n\n");
    }
    system.push_str(&tools_section(req.tools));
    let mut messages = vec![json!({"role": "system", "content": system})];
    for m in req.messages {
        match m.role {
            Role::User => messages.extend(user(m)),
            Role::Assistant => messages.extend(assistant(m)),
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(req.model));
    body.insert("messages".into(), Value::Array(messages));
    body.insert("stream".into(), json!(true));
    body.insert("stream_options".into(), json!({"include_usage": true}));
    if let Some(max) = req.max_output_tokens {
        body.insert("max_tokens".into(), json!(max));
    }
    Value::Object(body)
}

/// The `# Tools` section: each tool as an OpenAI function entry on its own line.
pub(crate) fn tools_section(tools: &[ToolSpec]) -> String {
    let mut out = String::from(TOOLS_INTRO);
    for t in tools {
        let entry = json!({"type": "function", "function": {
            "name": t.name,
            "description": short(&t.description),
            "parameters": lean_schema(&t.input_schema),
        }});
        out.push_str(&entry.to_string());
        out.push('\n');
    }
    out.push_str(TOOLS_OUTRO);
    out.push_str(GROUNDING);
    // One worked call, of a tool that is offered: small models copy a shape they saw.
    if let Some((name, args)) = EXAMPLES
        .iter()
        .find(|(name, _)| tools.iter().any(|t| t.name == *name))
    {
        out.push_str(&format!(
            "\n\nFor example:\n<tool_call>\n{{\"name\": \"{name}\", \"arguments\": {args}}}\n</tool_call>"
        ));
    }
    out
}

/// The description up to the last sentence end within [`MAX_DESCRIPTION`] characters.
fn short(description: &str) -> String {
    let text = description.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() <= MAX_DESCRIPTION {
        return text;
    }
    let cut: String = text.chars().take(MAX_DESCRIPTION).collect();
    match cut.rfind(". ") {
        Some(end) => cut[..=end].to_owned(),
        None => format!("{}…", cut.trim_end()),
    }
}

/// The schema without what only validators read (`$schema`, titles, `format`), and with
/// each property's description cut like the tool's.
fn lean_schema(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, value) in map {
                match key.as_str() {
                    "$schema" | "title" | "format" | "examples" => {}
                    "description" => {
                        let text = value.as_str().map_or_else(String::new, short);
                        out.insert(key.clone(), Value::String(text));
                    }
                    _ => {
                        out.insert(key.clone(), lean_schema(value));
                    }
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(lean_schema).collect()),
        other => other.clone(),
    }
}

/// Tool results as one user turn of `<tool_response>` blocks, then the user's own words;
/// with images, the content is an array of that text and `image_url` parts.
fn user(m: &Message) -> Option<Value> {
    let mut parts: Vec<String> = Vec::new();
    let mut images: Vec<Value> = Vec::new();
    for block in &m.content {
        match block {
            ContentBlock::ToolResult(r) => {
                let content = super::result_text(r);
                parts.push(format!("<tool_response>\n{content}\n</tool_response>"));
            }
            ContentBlock::Text { text } if !text.is_empty() => parts.push(text.clone()),
            ContentBlock::Mention(mention) => parts.push(mention.model_text()),
            ContentBlock::Image(image) => {
                if let Some(call) = &image.tool_call_id {
                    images.push(
                        json!({"type": "text", "text": crate::images::from_call(image, call)}),
                    );
                }
                images.push(crate::images::openai_part(image));
            }
            _ => {}
        }
    }
    if !images.is_empty() {
        let mut content = Vec::new();
        if !parts.is_empty() {
            content.push(json!({"type": "text", "text": parts.join("\n")}));
        }
        content.extend(images);
        return Some(json!({"role": "user", "content": content}));
    }
    (!parts.is_empty()).then(|| json!({"role": "user", "content": parts.join("\n")}))
}

/// The assistant's words, then each call as a `<tool_call>` block.
fn assistant(m: &Message) -> Option<Value> {
    let mut text = String::new();
    let mut calls = Vec::new();
    for block in &m.content {
        match block {
            ContentBlock::Text { text: t } => text.push_str(t),
            ContentBlock::ToolCall(c) => calls.push(c),
            _ => {}
        }
    }
    let from_text: Vec<&str> = calls
        .iter()
        .filter(|c| c.parsed_from_text)
        .map(|c| c.name.as_str())
        .collect();
    if !from_text.is_empty() {
        // Sessions from before calls were held back carry them in the text too.
        text = strip_tool_calls(&text, &from_text);
    }
    let mut content = text.trim().to_owned();
    for c in calls {
        if !content.is_empty() {
            content.push('\n');
        }
        let call = json!({"name": c.name, "arguments": c.input});
        content.push_str(&format!("<tool_call>\n{call}\n</tool_call>"));
    }
    (!content.is_empty()).then(|| json!({"role": "assistant", "content": content}))
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_protocol::{SharedText, ToolCall, ToolResult};

    fn spec(name: &str, description: &str) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: description.into(),
            input_schema: json!({"type": "object", "title": "X", "properties": {"path": {
                "type": "string", "description": "Where.", "format": "path"}}}),
        }
    }

    #[test]
    fn the_tools_are_listed_in_the_system_prompt_and_not_as_a_parameter() {
        let tools = [spec("file_read", "Read a file.")];
        let messages = [Message::user_text("hi")];
        let req = ModelRequest {
            model: "m",
            system: Some("You are Paddock."),
            messages: &messages,
            tools: &tools,
            max_output_tokens: Some(100),
        };
        let body = body(&req);
        assert!(body.get("tools").is_none());
        let system = body["messages"][0]["content"].as_str().unwrap();
        assert!(
            system.starts_with("You are Paddock.\n\n# Tools"),
            "{system}"
        );
        assert!(system.contains(
            r#"{"type":"function","function":{"name":"file_read","description":"Read a file.","parameters":{"type":"object","properties":{"path":{"type":"string","description":"Where."}}}}}"#
        ), "{system}");
        assert!(system.contains("<tool_call>"));
        assert_eq!(body["max_tokens"], json!(100));
        assert!(system.contains("never guess"), "{system}");
        assert!(
            system.ends_with(
                "For example:\n<tool_call>\n{\"name\": \"file_read\", \"arguments\": {\"path\": \"README.md\"}}\n</tool_call>"
            ),
            "{system}"
        );
    }

    /// The worked example is of a tool that is offered, and the text reader takes it as a
    /// call (a model that copies it makes a valid call); with none of those tools, none.
    #[test]
    fn the_worked_example_is_an_offered_tool_and_reads_as_a_call() {
        let section = tools_section(&[spec("bash", "Run."), spec("grep", "Find.")]);
        let example = section.split("For example:\n").nth(1).unwrap();
        let calls = paddock_text_calls::extract_tool_calls(example, &["bash", "grep"]);
        assert_eq!(calls.len(), 1, "{example}");
        assert_eq!(calls[0].name, "bash");
        assert!(!tools_section(&[spec("grep", "Find.")]).contains("For example"));
    }

    #[test]
    fn calls_and_results_travel_as_text() {
        let call = ToolCall {
            id: "c1".into(),
            name: "grep".into(),
            input: json!({"pattern": "x"}),
            parsed_from_text: true,
        };
        let said = format!(
            "Looking.\n<tool_call>\n{}\n</tool_call>",
            json!({"name": "grep", "arguments": {"pattern": "x"}})
        );
        let assistant_msg = Message {
            role: Role::Assistant,
            content: vec![
                ContentBlock::Text { text: said },
                ContentBlock::ToolCall(call.into()),
            ],
        };
        let results = Message {
            role: Role::User,
            content: vec![ContentBlock::ToolResult(ToolResult {
                tool_call_id: "c1".into(),
                content: SharedText::from("a.rs:1: x".to_owned()),
                is_error: false,
            })],
        };
        let a = assistant(&assistant_msg).unwrap();
        assert_eq!(
            a["content"],
            json!(
                "Looking.\n<tool_call>\n{\"name\":\"grep\",\"arguments\":{\"pattern\":\"x\"}}\n</tool_call>"
            )
        );
        assert!(a.get("tool_calls").is_none());
        let u = user(&results).unwrap();
        assert_eq!(u["role"], json!("user"));
        assert_eq!(
            u["content"],
            json!("<tool_response>\na.rs:1: x\n</tool_response>")
        );
    }

    #[test]
    fn long_descriptions_are_cut_at_a_sentence() {
        let long = format!("First sentence. {}", "word ".repeat(100));
        assert_eq!(short(&long), "First sentence.");
        assert_eq!(short("  Two\n lines. "), "Two lines.");
    }
}
