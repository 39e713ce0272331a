use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::{ImageBlock, Mention, SharedText};

/// Who said a message. Tool results travel in `User` messages, as both vendors expect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    User,
    Assistant,
}

/// A tool call the model asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    #[ts(type = "unknown")]
    pub input: Value,
    /// True when the call was recovered from plain text (local models), not emitted natively.
    #[serde(default, skip_serializing_if = "is_false")]
    #[ts(optional = nullable)]
    pub parsed_from_text: bool,
}

/// The answer to one tool call, as the model will see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ToolResult {
    pub tool_call_id: String,
    #[ts(type = "string")]
    pub content: SharedText,
    #[serde(default)]
    pub is_error: bool,
}

/// One block of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    Text {
        text: String,
    },
    /// Model reasoning. Anthropic signs it; the signature must be sent back unchanged.
    Thinking {
        thinking: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        signature: Option<String>,
    },
    /// Reasoning the vendor encrypted; opaque, only ever sent back.
    RedactedThinking {
        data: String,
    },
    /// Shared with the events that show the call, not copied into them.
    ToolCall(Arc<ToolCall>),
    ToolResult(ToolResult),
    /// A file or folder the user named in the prompt (`@path`): sent as text.
    Mention(Mention),
    /// An image: the user's, or the output of the tool call it names (`tool_call_id`).
    Image(ImageBlock),
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Message {
    pub role: Role,
    pub content: Vec<ContentBlock>,
}

impl Message {
    pub fn user_text(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: vec![ContentBlock::Text { text: text.into() }],
        }
    }

    pub fn assistant_text(text: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: vec![ContentBlock::Text { text: text.into() }],
        }
    }

    /// All text blocks joined, in order.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for block in &self.content {
            if let ContentBlock::Text { text } = block {
                out.push_str(text);
            }
        }
        out
    }

    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.shared_tool_calls().map(|call| &**call)
    }

    /// The calls as the history holds them, to share without a copy.
    pub fn shared_tool_calls(&self) -> impl Iterator<Item = &Arc<ToolCall>> {
        self.content.iter().filter_map(|b| match b {
            ContentBlock::ToolCall(call) => Some(call),
            _ => None,
        })
    }

    pub fn tool_results(&self) -> impl Iterator<Item = &ToolResult> {
        self.content.iter().filter_map(|b| match b {
            ContentBlock::ToolResult(result) => Some(result),
            _ => None,
        })
    }
}

/// Why the model stopped one response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    EndTurn,
    ToolUse,
    MaxTokens,
    StopSequence,
    Refusal,
    /// The stream ended without saying why.
    Unknown,
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_are_tagged_and_round_trip() {
        let msg = Message {
            role: Role::Assistant,
            content: vec![
                ContentBlock::Thinking {
                    thinking: "hmm".into(),
                    signature: Some("sig".into()),
                },
                ContentBlock::Text { text: "hi".into() },
                ContentBlock::ToolCall(Arc::new(ToolCall {
                    id: "c1".into(),
                    name: "grep".into(),
                    input: json!({"pattern": "x"}),
                    parsed_from_text: false,
                })),
            ],
        };
        let v = serde_json::to_value(&msg).unwrap();
        assert_eq!(
            v,
            json!({"role": "assistant", "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "sig"},
                {"type": "text", "text": "hi"},
                {"type": "tool_call", "id": "c1", "name": "grep", "input": {"pattern": "x"}}
            ]})
        );
        let back: Message = serde_json::from_value(v).unwrap();
        assert_eq!(back, msg);
        assert_eq!(back.text(), "hi");
        assert_eq!(back.tool_calls().count(), 1);
    }

    #[test]
    fn a_calls_input_keeps_the_models_key_order() {
        // Sessions and replayed requests show the input as the model wrote it, in every
        // shell (the workspace sets serde_json's preserve_order).
        let line = r#"{"id":"c","name":"edit","input":{"path":"a","old":"x","new":"y"}}"#;
        let call: ToolCall = serde_json::from_str(line).unwrap();
        assert_eq!(serde_json::to_string(&call).unwrap(), line);
    }

    #[test]
    fn parsed_from_text_is_kept_when_set() {
        let call = ToolCall {
            id: "c".into(),
            name: "glob".into(),
            input: json!({}),
            parsed_from_text: true,
        };
        let v = serde_json::to_value(ContentBlock::ToolCall(Arc::new(call))).unwrap();
        assert_eq!(v["parsed_from_text"], json!(true));
    }
}
