//! A model that plays back a script: for tests, benchmarks and demos. No network.
#![allow(clippy::panic)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::StreamExt;
use paddock_protocol::{ErrorKind, Retry, StopReason, TokenUsage, ToolCall};
use serde_json::Value;

use crate::model::{Model, ModelError, ModelEvent, ModelRequest, ModelStream, OwnedRequest};

/// One step of a scripted response.
#[derive(Debug, Clone)]
pub enum ScriptItem {
    Event(ModelEvent),
    Error(ModelError),
    /// Wait before the next item (lets tests cancel mid-stream).
    Delay(Duration),
    /// Never yield again: the stream only ends when dropped.
    Hang,
}

/// One scripted model response.
#[derive(Debug, Clone, Default)]
pub struct ScriptedTurn {
    pub items: Vec<ScriptItem>,
}

impl ScriptedTurn {
    pub fn new() -> Self {
        Self::default()
    }

    /// A final answer: text, then `end_turn`.
    pub fn text(text: &str) -> Self {
        Self::new().delta(text).stop(StopReason::EndTurn)
    }

    /// A turn that asks for the given tools (ids `call_<n>_<i>` are filled in by the model).
    pub fn tools(calls: &[(&str, Value)]) -> Self {
        let mut turn = Self::new();
        for (name, input) in calls {
            turn = turn.call("", name, input.clone());
        }
        turn.stop(StopReason::ToolUse)
    }

    pub fn delta(mut self, text: &str) -> Self {
        self.items
            .push(ScriptItem::Event(ModelEvent::TextDelta(text.to_owned())));
        self
    }

    /// A tool call; an empty id is replaced by a unique one when played.
    pub fn call(mut self, id: &str, name: &str, input: Value) -> Self {
        self.items
            .push(ScriptItem::Event(ModelEvent::ToolCall(ToolCall {
                id: id.to_owned(),
                name: name.to_owned(),
                input,
                parsed_from_text: false,
            })));
        self
    }

    pub fn thinking(mut self, text: &str, signature: &str) -> Self {
        self.items.push(ScriptItem::Event(ModelEvent::ThinkingDelta(
            text.to_owned(),
        )));
        self.items
            .push(ScriptItem::Event(ModelEvent::ThinkingSignature(
                signature.to_owned(),
            )));
        self
    }

    pub fn usage(mut self, input_tokens: u64, output_tokens: u64) -> Self {
        self.items
            .push(ScriptItem::Event(ModelEvent::Usage(TokenUsage::new(
                input_tokens,
                output_tokens,
            ))));
        self
    }

    pub fn notice(mut self, message: &str) -> Self {
        self.items
            .push(ScriptItem::Event(ModelEvent::Notice(message.to_owned())));
        self
    }

    /// The call failed and is tried again, as the provider driver says it.
    pub fn retrying(mut self, message: &str, retry: Retry) -> Self {
        self.items.push(ScriptItem::Event(ModelEvent::Retrying {
            message: message.to_owned(),
            retry,
        }));
        self
    }

    pub fn stop(mut self, reason: StopReason) -> Self {
        self.items.push(ScriptItem::Event(ModelEvent::Stop(reason)));
        self
    }

    pub fn delay(mut self, d: Duration) -> Self {
        self.items.push(ScriptItem::Delay(d));
        self
    }

    pub fn hang(mut self) -> Self {
        self.items.push(ScriptItem::Hang);
        self
    }

    pub fn error(mut self, kind: ErrorKind, message: &str) -> Self {
        self.items
            .push(ScriptItem::Error(ModelError::new(kind, message)));
        self
    }
}

#[derive(Default)]
struct State {
    turns: VecDeque<ScriptedTurn>,
    /// `Some` when recording: a copy of every request.
    requests: Option<Vec<OwnedRequest>>,
    calls: u64,
}

/// Plays [`ScriptedTurn`]s in order. It counts the requests it receives; a recording model
/// also keeps a copy of each (which costs the whole conversation per call, so long runs and
/// benchmarks use a plain one).
#[derive(Clone, Default)]
pub struct ScriptedModel {
    state: Arc<Mutex<State>>,
}

impl ScriptedModel {
    pub fn new(turns: impl IntoIterator<Item = ScriptedTurn>) -> Self {
        let model = Self::default();
        model.push_all(turns);
        model
    }

    /// A model that keeps a copy of every request, for [`ScriptedModel::requests`].
    pub fn recording(turns: impl IntoIterator<Item = ScriptedTurn>) -> Self {
        let model = Self::new(turns);
        model.lock().requests = Some(Vec::new());
        model
    }

    pub fn push(&self, turn: ScriptedTurn) {
        self.lock().turns.push_back(turn);
    }

    pub fn push_all(&self, turns: impl IntoIterator<Item = ScriptedTurn>) {
        self.lock().turns.extend(turns);
    }

    /// Every request received so far, oldest first. Only a recording model keeps them:
    /// asking a plain one is a mistake in the test, and says so.
    pub fn requests(&self) -> Vec<OwnedRequest> {
        match &self.lock().requests {
            Some(requests) => requests.clone(),
            None => panic!("requests() needs ScriptedModel::recording"),
        }
    }

    /// How many requests the model received.
    pub fn calls(&self) -> u64 {
        self.lock().calls
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Model for ScriptedModel {
    fn stream(&self, request: &ModelRequest<'_>) -> ModelStream {
        let (turn, n) = {
            let mut state = self.lock();
            if let Some(requests) = &mut state.requests {
                requests.push(OwnedRequest::from(request));
            }
            state.calls += 1;
            (state.turns.pop_front(), state.calls)
        };
        let Some(turn) = turn else {
            let err = ModelError::new(
                ErrorKind::InvalidResponse,
                "the scripted model has no more responses",
            );
            return futures_util::stream::iter([Err(err)]).boxed();
        };
        let items = turn.items.into_iter().enumerate().map(move |(i, item)| {
            if let ScriptItem::Event(ModelEvent::ToolCall(mut call)) = item {
                if call.id.is_empty() {
                    call.id = format!("call_{n}_{i}");
                }
                ScriptItem::Event(ModelEvent::ToolCall(call))
            } else {
                item
            }
        });
        futures_util::stream::iter(items)
            .then(|item| async move {
                match item {
                    ScriptItem::Event(e) => Some(Ok(e)),
                    ScriptItem::Error(e) => Some(Err(e)),
                    ScriptItem::Delay(d) => {
                        tokio::time::sleep(d).await;
                        None
                    }
                    ScriptItem::Hang => futures_util::future::pending().await,
                }
            })
            .filter_map(futures_util::future::ready)
            .boxed()
    }
}
