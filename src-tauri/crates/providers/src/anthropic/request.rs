//! Builds Anthropic Messages API request bodies.

use paddock_kernel::ModelRequest;
use paddock_protocol::{ContentBlock, Message, Role};
use serde_json::{Map, Value, json};

/// Request settings that come from the provider config, not the conversation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Options {
    pub default_max_tokens: u32,
    pub thinking_budget: Option<u32>,
}

pub(crate) fn body(req: &ModelRequest<'_>, opts: Options) -> Value {
    let mut max_tokens = req.max_output_tokens.unwrap_or(opts.default_max_tokens);
    let mut body = Map::new();
    body.insert("model".into(), json!(req.model));
    if let Some(budget) = opts.thinking_budget {
        // The API requires max_tokens above the thinking budget; leave room for the answer.
        max_tokens = max_tokens.max(budget.saturating_add(1024));
        body.insert(
            "thinking".into(),
            json!({"type": "enabled", "budget_tokens": budget}),
        );
    }
    body.insert("max_tokens".into(), json!(max_tokens));
    body.insert("stream".into(), json!(true));
    if let Some(system) = req.system.filter(|s| !s.is_empty()) {
        body.insert("system".into(), json!(system));
    }
    let messages: Vec<Value> = req.messages.iter().filter_map(message).collect();
    body.insert("messages".into(), Value::Array(messages));
    if !req.tools.is_empty() {
        let tools = req
            .tools
            .iter()
            .map(|t| {
                let mut tool = Map::new();
                tool.insert("name".into(), json!(t.name));
                if !t.description.is_empty() {
                    tool.insert("description".into(), json!(t.description));
                }
                tool.insert("input_schema".into(), t.input_schema.clone());
                Value::Object(tool)
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    Value::Object(body)
}

fn message(m: &Message) -> Option<Value> {
    let role = match m.role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    let content: Vec<Value> = m.content.iter().filter_map(block).collect();
    // The API rejects messages without content; a reply of pure unsigned reasoning has none.
    (!content.is_empty()).then(|| json!({"role": role, "content": content}))
}

fn block(b: &ContentBlock) -> Option<Value> {
    Some(match b {
        // Empty text blocks are rejected by the API.
        ContentBlock::Text { text } if text.is_empty() => return None,
        ContentBlock::Text { text } => json!({"type": "text", "text": text}),
        ContentBlock::Thinking {
            thinking,
            signature: Some(signature),
        } => json!({"type": "thinking", "thinking": thinking, "signature": signature}),
        // Unsigned reasoning (another vendor's, or cut off) cannot be sent back.
        ContentBlock::Thinking {
            signature: None, ..
        } => return None,
        ContentBlock::RedactedThinking { data } => {
            json!({"type": "redacted_thinking", "data": data})
        }
        ContentBlock::ToolCall(call) => {
            // Input that did not parse as an object was reported to the model as an error;
            // the API only takes objects here.
            let input = if call.input.is_object() {
                call.input.clone()
            } else {
                json!({})
            };
            json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input})
        }
        ContentBlock::ToolResult(result) => {
            let mut v = json!({
                "type": "tool_result",
                "tool_use_id": result.tool_call_id,
                "content": result.content,
            });
            if result.is_error {
                v["is_error"] = json!(true);
            }
            v
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_protocol::{ToolCall, ToolResult, ToolSpec};

    #[test]
    fn builds_a_whole_request() {
        let messages = vec![
            Message::user_text("hi"),
            Message {
                role: Role::Assistant,
                content: vec![
                    ContentBlock::Thinking {
                        thinking: "hmm".into(),
                        signature: Some("sig".into()),
                    },
                    ContentBlock::Thinking {
                        thinking: "unsigned".into(),
                        signature: None,
                    },
                    ContentBlock::RedactedThinking {
                        data: "opaque".into(),
                    },
                    ContentBlock::Text {
                        text: String::new(),
                    },
                    ContentBlock::ToolCall(ToolCall {
                        id: "toolu_1".into(),
                        name: "echo".into(),
                        input: json!({"text": "a"}),
                        parsed_from_text: false,
                    }),
                ],
            },
            Message {
                role: Role::User,
                content: vec![ContentBlock::ToolResult(ToolResult {
                    tool_call_id: "toolu_1".into(),
                    content: "boom".into(),
                    is_error: true,
                })],
            },
        ];
        let tools = vec![ToolSpec {
            name: "echo".into(),
            description: String::new(),
            input_schema: json!({"type": "object"}),
        }];
        let req = ModelRequest {
            model: "claude-x",
            system: Some("be brief"),
            messages: &messages,
            tools: &tools,
            max_output_tokens: None,
        };
        let got = body(
            &req,
            Options {
                default_max_tokens: 1000,
                thinking_budget: Some(2000),
            },
        );
        assert_eq!(
            got,
            json!({
                "model": "claude-x",
                "max_tokens": 3024,
                "thinking": {"type": "enabled", "budget_tokens": 2000},
                "stream": true,
                "system": "be brief",
                "messages": [
                    {"role": "user", "content": [{"type": "text", "text": "hi"}]},
                    {"role": "assistant", "content": [
                        {"type": "thinking", "thinking": "hmm", "signature": "sig"},
                        {"type": "redacted_thinking", "data": "opaque"},
                        {"type": "tool_use", "id": "toolu_1", "name": "echo", "input": {"text": "a"}}
                    ]},
                    {"role": "user", "content": [
                        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "boom", "is_error": true}
                    ]}
                ],
                "tools": [{"name": "echo", "input_schema": {"type": "object"}}]
            })
        );
    }
}
