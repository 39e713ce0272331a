//! Turns a model's event stream into one assistant message, streaming deltas as events.

use futures_util::StreamExt;
use paddock_protocol::{AgentEvent, ContentBlock, Message, Role, StopReason, TokenUsage};
use tokio_util::sync::CancellationToken;

use crate::events::EventSink;
use crate::model::{ModelError, ModelEvent, ModelStream};

/// One assembled model response.
#[derive(Debug, Default)]
pub(crate) struct Response {
    pub blocks: Vec<ContentBlock>,
    pub usage: TokenUsage,
    pub stop: Option<StopReason>,
}

/// Why a response did not complete.
pub(crate) enum Interrupted {
    Aborted(Response),
    Failed(ModelError, Response),
}

impl Response {
    pub fn text(&self) -> String {
        self.blocks
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    pub fn into_message(self) -> Message {
        Message {
            role: Role::Assistant,
            content: self.blocks,
        }
    }

    /// What is worth keeping of a response that did not finish: its text, never its calls
    /// (they were not run) nor unsigned reasoning.
    pub fn into_partial_message(self) -> Option<Message> {
        let text = self.text();
        (!text.is_empty()).then(|| Message::assistant_text(text))
    }

    fn apply(&mut self, event: ModelEvent, events: &dyn EventSink, turn: u32) {
        match event {
            ModelEvent::TextDelta(text) => {
                if text.is_empty() {
                    return;
                }
                events.emit(AgentEvent::TextDelta { text: text.clone() });
                match self.blocks.last_mut() {
                    Some(ContentBlock::Text { text: t }) => t.push_str(&text),
                    _ => self.blocks.push(ContentBlock::Text { text }),
                }
            }
            ModelEvent::ThinkingDelta(text) => {
                events.emit(AgentEvent::ThinkingDelta { text: text.clone() });
                match self.blocks.last_mut() {
                    Some(ContentBlock::Thinking {
                        thinking,
                        signature: None,
                    }) => thinking.push_str(&text),
                    _ => self.blocks.push(ContentBlock::Thinking {
                        thinking: text,
                        signature: None,
                    }),
                }
            }
            ModelEvent::ThinkingSignature(sig) => match self.blocks.last_mut() {
                Some(ContentBlock::Thinking { signature, .. }) => *signature = Some(sig),
                _ => self.blocks.push(ContentBlock::Thinking {
                    thinking: String::new(),
                    signature: Some(sig),
                }),
            },
            ModelEvent::RedactedThinking(data) => {
                self.blocks.push(ContentBlock::RedactedThinking { data });
            }
            ModelEvent::ToolCall(mut call) => {
                // Local servers omit or repeat ids; results are matched by id, so make them
                // unique. A turn has few calls: the ones so far are looked through, no set.
                let mut calls = self.blocks.iter().filter_map(|b| match b {
                    ContentBlock::ToolCall(c) => Some(c.id.as_str()),
                    _ => None,
                });
                if call.id.is_empty() || calls.any(|id| id == call.id) {
                    let n = self
                        .blocks
                        .iter()
                        .filter(|b| matches!(b, ContentBlock::ToolCall(_)))
                        .count();
                    call.id = format!("call_t{turn}_{n}");
                }
                self.blocks.push(ContentBlock::ToolCall(call.into()));
            }
            ModelEvent::Usage(u) => self.usage += u,
            ModelEvent::Stop(reason) => self.stop = Some(reason),
            ModelEvent::Notice(message) => events.emit(AgentEvent::warning(message)),
            ModelEvent::Retrying { message, retry } => events.emit(AgentEvent::Warning {
                message,
                retry: Some(retry),
            }),
        }
    }
}

/// Drains `stream` into a [`Response`], stopping at once when `cancel` fires.
pub(crate) async fn collect(
    mut stream: ModelStream,
    events: &dyn EventSink,
    cancel: &CancellationToken,
    turn: u32,
) -> Result<Response, Interrupted> {
    let mut response = Response::default();
    // One wait for the whole response: it registers once, not again for every event.
    let cancelled = cancel.cancelled();
    tokio::pin!(cancelled);
    loop {
        let next = tokio::select! {
            biased;
            () = &mut cancelled => return Err(Interrupted::Aborted(response)),
            next = stream.next() => next,
        };
        match next {
            None => return Ok(response),
            Some(Ok(event)) => response.apply(event, events, turn),
            Some(Err(err)) => return Err(Interrupted::Failed(err, response)),
        }
    }
}
