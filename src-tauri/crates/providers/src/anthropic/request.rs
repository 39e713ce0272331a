//! Builds Anthropic Messages API request bodies.

use paddock_core::ModelRequest;
use paddock_protocol::{ContentBlock, Message, Role};
use serde_json::{Map, Value, json};

/// Request settings that come from the provider config, not the conversation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Options {
    pub default_max_tokens: u32,
    pub thinking_budget: Option<u32>,
    pub prompt_cache: bool,
}

/// User turns, counted from the end, whose last block is a cache breakpoint: the newest
/// writes the cache, the one before reads what the previous call wrote. With the system
/// prompt (or the tools) that makes 3 of the API's 4 breakpoints.
const CACHED_USER_TURNS: usize = 2;

fn cache_control() -> Value {
    json!({"type": "ephemeral"})
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
    let system = req.system.filter(|s| !s.is_empty());
    if let Some(system) = system {
        let system = if opts.prompt_cache {
            json!([{"type": "text", "text": system, "cache_control": cache_control()}])
        } else {
            json!(system)
        };
        body.insert("system".into(), system);
    }
    let mut messages: Vec<Value> = req.messages.iter().filter_map(message).collect();
    if opts.prompt_cache {
        mark_user_turns(&mut messages);
    }
    body.insert("messages".into(), Value::Array(messages));
    if !req.tools.is_empty() {
        let mut tools: Vec<Value> = req
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
        // Tools come before the system prompt: with no system prompt, cache them alone.
        if opts.prompt_cache
            && system.is_none()
            && let Some(last) = tools.last_mut()
        {
            last["cache_control"] = cache_control();
        }
        body.insert("tools".into(), Value::Array(tools));
    }
    Value::Object(body)
}

/// Marks the last block of the last [`CACHED_USER_TURNS`] user messages. User messages hold
/// only text, images and tool results, all of which may carry a breakpoint (thinking may not).
fn mark_user_turns(messages: &mut [Value]) {
    let users = messages
        .iter_mut()
        .rev()
        .filter(|m| m["role"] == "user")
        .take(CACHED_USER_TURNS);
    for m in users {
        if let Some(last) = m["content"].as_array_mut().and_then(|c| c.last_mut()) {
            last["cache_control"] = cache_control();
        }
    }
}

fn message(m: &Message) -> Option<Value> {
    let role = match m.role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    let mut content: Vec<Value> = Vec::new();
    for b in &m.content {
        match b {
            // A tool's image goes inside its call's result, which takes text and image blocks.
            ContentBlock::Image(image) if image.tool_call_id.is_some() => {
                let owner = content.iter_mut().find(|v| {
                    v["type"] == "tool_result"
                        && v["tool_use_id"].as_str() == image.tool_call_id.as_deref()
                });
                match owner {
                    Some(result) => {
                        let text = result["content"].take();
                        result["content"] = json!([
                            {"type": "text", "text": text},
                            crate::images::anthropic(image)
                        ]);
                    }
                    None => content.push(crate::images::anthropic(image)),
                }
            }
            other => content.extend(block(other)),
        }
    }
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
        ContentBlock::Mention(m) => json!({"type": "text", "text": m.model_text()}),
        ContentBlock::Image(image) => crate::images::anthropic(image),
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
                    ContentBlock::ToolCall(
                        ToolCall {
                            id: "toolu_1".into(),
                            name: "echo".into(),
                            input: json!({"text": "a"}),
                            parsed_from_text: false,
                        }
                        .into(),
                    ),
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
                prompt_cache: false,
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

    fn cached(system: Option<&str>, messages: &[Message], tools: &[ToolSpec]) -> Value {
        let req = ModelRequest {
            model: "claude-x",
            system,
            messages,
            tools,
            max_output_tokens: None,
        };
        body(
            &req,
            Options {
                default_max_tokens: 1000,
                thinking_budget: None,
                prompt_cache: true,
            },
        )
    }

    fn breakpoints(v: &Value) -> usize {
        match v {
            Value::Object(m) => {
                usize::from(m.contains_key("cache_control"))
                    + m.values().map(breakpoints).sum::<usize>()
            }
            Value::Array(a) => a.iter().map(breakpoints).sum(),
            _ => 0,
        }
    }

    fn tool_turn(id: &str) -> [Message; 2] {
        [
            Message {
                role: Role::Assistant,
                content: vec![
                    ContentBlock::Thinking {
                        thinking: "hmm".into(),
                        signature: Some("sig".into()),
                    },
                    ContentBlock::ToolCall(
                        ToolCall {
                            id: id.into(),
                            name: "echo".into(),
                            input: json!({}),
                            parsed_from_text: false,
                        }
                        .into(),
                    ),
                ],
            },
            Message {
                role: Role::User,
                content: vec![ContentBlock::ToolResult(ToolResult {
                    tool_call_id: id.into(),
                    content: "ok".into(),
                    is_error: false,
                })],
            },
        ]
    }

    #[test]
    fn caches_the_system_prompt_and_the_last_two_user_turns() {
        let tools = vec![ToolSpec {
            name: "echo".into(),
            description: String::new(),
            input_schema: json!({"type": "object"}),
        }];
        let mut messages = vec![Message::user_text("first")];
        messages.extend(tool_turn("t1"));
        messages.extend(tool_turn("t2"));
        let got = cached(Some("be brief"), &messages, &tools);
        let mark = json!({"type": "ephemeral"});
        assert_eq!(
            got["system"],
            json!([{"type": "text", "text": "be brief", "cache_control": mark}])
        );
        assert!(
            got["tools"][0].get("cache_control").is_none(),
            "the system mark covers tools"
        );
        let msgs = got["messages"].as_array().unwrap();
        assert!(
            msgs[0]["content"][0].get("cache_control").is_none(),
            "only two user turns"
        );
        assert_eq!(msgs[2]["content"][0]["cache_control"], mark);
        assert_eq!(msgs[4]["content"][0]["cache_control"], mark);
        for assistant in [&msgs[1], &msgs[3]] {
            assert_eq!(breakpoints(assistant), 0, "thinking may not carry one");
        }
        assert_eq!(breakpoints(&got), 3, "within the API's 4");
    }

    #[test]
    fn without_a_system_prompt_the_tools_are_cached_and_off_means_off() {
        let tools = vec![
            ToolSpec {
                name: "a".into(),
                description: String::new(),
                input_schema: json!({"type": "object"}),
            },
            ToolSpec {
                name: "b".into(),
                description: String::new(),
                input_schema: json!({"type": "object"}),
            },
        ];
        let messages = vec![Message::user_text("hi")];
        let got = cached(None, &messages, &tools);
        assert!(got.get("system").is_none());
        assert!(got["tools"][0].get("cache_control").is_none());
        assert_eq!(
            got["tools"][1]["cache_control"],
            json!({"type": "ephemeral"})
        );
        assert_eq!(breakpoints(&got), 2);

        let req = ModelRequest {
            model: "claude-x",
            system: Some("s"),
            messages: &messages,
            tools: &tools,
            max_output_tokens: None,
        };
        let off = Options {
            default_max_tokens: 1000,
            thinking_budget: None,
            prompt_cache: false,
        };
        let got = body(&req, off);
        assert_eq!(got["system"], "s");
        assert_eq!(breakpoints(&got), 0);
    }
}
