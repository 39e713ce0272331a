//! The seam between the kernel and a model vendor. Providers implement [`Model`];
//! the kernel only ever sees [`ModelEvent`]s.

use std::time::Duration;

use futures_util::stream::BoxStream;
use paddock_protocol::{ErrorKind, Message, Retry, StopReason, TokenUsage, ToolCall, ToolSpec};

/// Everything one model call needs. Borrowed: the conversation is never copied per call;
/// a provider serializes what it needs before `stream` returns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelRequest<'a> {
    pub model: &'a str,
    pub system: Option<&'a str>,
    pub messages: &'a [Message],
    pub tools: &'a [ToolSpec],
    /// Upper bound on output tokens for this call, if the caller has one.
    pub max_output_tokens: Option<u32>,
}

/// An owned copy of a [`ModelRequest`], for recording (tests, the scripted model).
#[derive(Debug, Clone, PartialEq)]
pub struct OwnedRequest {
    pub model: String,
    pub system: Option<String>,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
    pub max_output_tokens: Option<u32>,
}

impl From<&ModelRequest<'_>> for OwnedRequest {
    fn from(r: &ModelRequest<'_>) -> Self {
        Self {
            model: r.model.to_owned(),
            system: r.system.map(str::to_owned),
            messages: r.messages.to_vec(),
            tools: r.tools.to_vec(),
            max_output_tokens: r.max_output_tokens,
        }
    }
}

/// One piece of a streamed model response.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelEvent {
    TextDelta(String),
    ThinkingDelta(String),
    /// Signature of the thinking block that was just streamed.
    ThinkingSignature(String),
    RedactedThinking(String),
    /// A complete tool call (providers assemble fragments before emitting it).
    ToolCall(ToolCall),
    /// Tokens used, as an increment: the kernel adds every `Usage` of a response.
    Usage(TokenUsage),
    Stop(StopReason),
    /// Something the user should know while waiting, e.g. "asking again without streaming".
    Notice(String),
    /// The call failed and is tried again after a wait; said before the wait.
    Retrying {
        message: String,
        retry: Retry,
    },
}

/// A failed model call, classified so the user knows what to do.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct ModelError {
    pub kind: ErrorKind,
    pub message: String,
    /// When the vendor said how long to wait (rate limits).
    pub retry_after: Option<Duration>,
}

impl ModelError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            retry_after: None,
        }
    }
}

pub type ModelStream = BoxStream<'static, Result<ModelEvent, ModelError>>;

/// A streaming chat model. Dropping the returned stream must stop the request at once.
pub trait Model: Send + Sync {
    fn stream(&self, request: &ModelRequest<'_>) -> ModelStream;
}
