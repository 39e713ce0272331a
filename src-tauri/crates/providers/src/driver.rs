//! Runs one streamed model call: sends it, retries what can be retried, reads the event
//! stream under an idle timeout and hands each SSE event to a vendor [`Decoder`].
//!
//! A call is retried only while the caller has seen nothing but usage: once text or a
//! tool call went out, a second attempt would duplicate it, so the error is surfaced.
//! Dropping the stream drops the connection with it, which is how cancellation stops a call.
//!
//! Some servers refuse to stream when tools are offered (llama-cpp-python, llama.cpp
//! before mid-2025). Such a refusal is met once with the same request unstreamed, and
//! remembered so the provider's later calls with tools go unstreamed at once; a whole
//! JSON answer decodes into the same events as a stream.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures_util::StreamExt;
use paddock_core::{ModelError, ModelEvent, ModelStream};
use paddock_protocol::Retry;
use reqwest::Response;
use serde_json::Value;

use crate::http::{Transport, final_error};
use crate::retry::Failure;
use crate::sse::{SseEvent, SseParser};
use crate::tool_mode::ToolMode;

/// Turns one vendor's SSE events into model events.
pub(crate) trait Decoder: Send + 'static {
    fn event(&mut self, event: SseEvent, out: &mut Vec<ModelEvent>) -> Result<(), Failure>;
    /// The vendor's end marker arrived: nothing after it matters.
    fn is_done(&self) -> bool;
    /// The body ended without the end marker: finish if that is acceptable, else fail.
    fn finish(&mut self, out: &mut Vec<ModelEvent>) -> Result<(), Failure>;
    /// A whole, unstreamed response: decode it all and say true, or false when this
    /// vendor has no such thing.
    fn whole(&mut self, _body: &Value, _out: &mut Vec<ModelEvent>) -> Result<bool, Failure> {
        Ok(false)
    }
}

/// Told to the caller when a server refused to stream a call with tools.
pub(crate) const UNSTREAMED_NOTICE: &str =
    "the server does not stream tool calls; asking without streaming";

/// Told to the caller when a server refused the `tools` parameter, after its words.
pub(crate) const PROMPTED_NOTICE: &str = "Paddock now describes the tools in the system \
     prompt and reads the calls from the model's replies (prompted tool calls), for this \
     server from now on";

/// One model call to make.
pub(crate) struct Call {
    pub url: String,
    pub body: Vec<u8>,
    /// Whether `body` asks for a stream.
    pub streamed: bool,
    /// What to do if the server refuses to stream this call.
    pub unstreamed: Option<Unstreamed>,
    /// What to do if the server refuses the `tools` parameter.
    pub prompted: Option<Prompted>,
}

/// The same call with the tools described in the prompt (streamed, no `tools`).
pub(crate) struct Prompted {
    pub body: Vec<u8>,
    /// Told of a refusal; shared by every clone of the provider.
    pub mode: Arc<ToolMode>,
}

/// The same call without streaming, for a server that refuses to stream it.
pub(crate) struct Unstreamed {
    pub body: Vec<u8>,
    /// Set on a refusal; shared by every clone of the provider.
    pub remember: Arc<AtomicBool>,
}

/// An open response being read.
struct Reading<D> {
    response: Response,
    sse: SseParser,
    decoder: D,
}

enum Phase<D> {
    Connect,
    /// Waiting before the next attempt.
    Wait(std::time::Duration),
    Read(Box<Reading<D>>),
    Done,
}

struct Driver<D, F> {
    transport: Arc<Transport>,
    call: Call,
    make_decoder: F,
    attempt: u32,
    phase: Phase<D>,
    queue: VecDeque<ModelEvent>,
    /// Something other than usage reached the caller: no more retries.
    committed: bool,
}

/// Makes `call`, decoding with a fresh decoder per attempt.
pub(crate) fn stream<D, F>(transport: Arc<Transport>, call: Call, make_decoder: F) -> ModelStream
where
    D: Decoder,
    F: Fn() -> D + Send + 'static,
{
    let driver = Driver {
        transport,
        call,
        make_decoder,
        attempt: 1,
        phase: Phase::Connect,
        queue: VecDeque::new(),
        committed: false,
    };
    futures_util::stream::unfold(driver, |mut d| async move {
        let item = d.next().await?;
        Some((item, d))
    })
    .boxed()
}

fn wait_text(d: std::time::Duration) -> String {
    if d.as_millis() < 1000 {
        format!("{} ms", d.as_millis())
    } else {
        format!("{} s", d.as_secs_f64().round())
    }
}

/// A stream that fails at once (a request that could not even be built).
pub(crate) fn failed(error: ModelError) -> ModelStream {
    futures_util::stream::iter([Err(error)]).boxed()
}

impl<D: Decoder, F: Fn() -> D + Send + 'static> Driver<D, F> {
    async fn next(&mut self) -> Option<Result<ModelEvent, ModelError>> {
        loop {
            if let Some(event) = self.queue.pop_front() {
                if !matches!(
                    event,
                    ModelEvent::Usage(_) | ModelEvent::Notice(_) | ModelEvent::Retrying { .. }
                ) {
                    self.committed = true;
                }
                return Some(Ok(event));
            }
            let step = match std::mem::replace(&mut self.phase, Phase::Done) {
                Phase::Done => return None,
                Phase::Connect => self.connect().await,
                Phase::Wait(delay) => {
                    tokio::time::sleep(delay).await;
                    self.phase = Phase::Connect;
                    Ok(())
                }
                Phase::Read(reading) => self.read(reading).await,
            };
            if let Err(failure) = step {
                self.queue.clear();
                if failure.stream_refused && !self.committed && self.unstream() {
                    continue;
                }
                if !self.committed && self.prompt_tools(&failure) {
                    continue;
                }
                let delay = if self.committed {
                    None
                } else {
                    self.transport.retry_delay(self.attempt, &failure)
                };
                if let Some(delay) = delay {
                    self.attempt += 1;
                    // Said before the wait, so a UI shows why nothing is happening.
                    let retry = Retry {
                        attempt: self.attempt,
                        attempts: self.transport.max_attempts(),
                    };
                    let message = format!(
                        "{}; retrying in {} (attempt {} of {})",
                        failure.error.message,
                        wait_text(delay),
                        retry.attempt,
                        retry.attempts
                    );
                    self.queue
                        .push_back(ModelEvent::Retrying { message, retry });
                    self.phase = Phase::Wait(delay);
                    continue;
                }
                return Some(Err(self.surface(failure)));
            }
        }
    }

    /// Switches to the unstreamed form of the call, once; false when there is none.
    fn unstream(&mut self) -> bool {
        let Some(unstreamed) = self.call.unstreamed.take() else {
            return false;
        };
        unstreamed.remember.store(true, Ordering::Relaxed);
        tracing::info!("the server refused to stream a call with tools; asking without streaming");
        self.call.body = unstreamed.body;
        self.call.streamed = false;
        self.queue
            .push_back(ModelEvent::Notice(UNSTREAMED_NOTICE.to_owned()));
        self.phase = Phase::Connect;
        true
    }

    /// Switches to the prompted form of the call after a refusal of the `tools`
    /// parameter, once; false when this failure is no such refusal or there is no form.
    fn prompt_tools(&mut self, failure: &Failure) -> bool {
        let Some(why) = failure.tools_refused else {
            return false;
        };
        let Some(prompted) = self.call.prompted.take() else {
            return false;
        };
        prompted.mode.fall_back(why);
        tracing::info!(error = %failure.error.message, "the server refused the tools parameter; describing the tools in the prompt");
        self.call.body = prompted.body;
        self.call.streamed = true;
        // Without the parameter there is no streaming of tools to refuse.
        self.call.unstreamed = None;
        self.queue.push_back(ModelEvent::Notice(format!(
            "{}; {PROMPTED_NOTICE}",
            failure.error.message
        )));
        self.phase = Phase::Connect;
        true
    }

    fn surface(&self, failure: Failure) -> ModelError {
        if self.committed && failure.retryable {
            let mut error = failure.error;
            error.message = format!(
                "{}; the response had already started, so it was not retried",
                error.message
            );
            return error;
        }
        let hint = failure.tools_refused.map(|why| why.hint());
        let mut error = final_error(failure, self.attempt);
        if let Some(hint) = hint {
            error.message.push_str(hint);
        }
        error
    }

    async fn connect(&mut self) -> Result<(), Failure> {
        let t = &self.transport;
        let response = t
            .post_once(&self.call.url, &self.call.body, self.call.streamed)
            .await?;
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if content_type.starts_with("application/json") || !self.call.streamed {
            // Unstreamed answers, errors, and servers that ignore `stream` send one
            // JSON document.
            let text = t.read_text(response).await?;
            let v = serde_json::from_str::<Value>(&text)
                .map_err(|e| t.ctx.invalid(format!("a response that is not JSON ({e})")))?;
            if v.get("error").is_some_and(|e| !e.is_null()) {
                return Err(t.ctx.stream_error(&v));
            }
            let mut out = Vec::new();
            if !(self.make_decoder)().whole(&v, &mut out)? {
                return Err(t
                    .ctx
                    .invalid("expected an event stream but got a JSON document"));
            }
            self.queue.extend(out);
            return Ok(());
        }
        self.phase = Phase::Read(Box::new(Reading {
            response,
            sse: SseParser::new(),
            decoder: (self.make_decoder)(),
        }));
        Ok(())
    }

    async fn read(&mut self, mut reading: Box<Reading<D>>) -> Result<(), Failure> {
        let t = &self.transport;
        let Reading {
            response,
            sse,
            decoder,
        } = &mut *reading;
        let chunk = match tokio::time::timeout(t.idle, response.chunk()).await {
            Err(_) => {
                return Err(t.ctx.idle_timeout(t.idle, "the next part of the response"));
            }
            Ok(Err(e)) => return Err(t.ctx.transport_failure(&e, true)),
            Ok(Ok(chunk)) => chunk,
        };
        let mut out = Vec::new();
        let Some(chunk) = chunk else {
            if let Some(event) = sse.finish().map_err(|e| t.ctx.invalid(e))? {
                decoder.event(event, &mut out)?;
            }
            if !decoder.is_done() {
                decoder.finish(&mut out)?;
            }
            self.queue.extend(out);
            return Ok(());
        };
        for event in sse.push(&chunk).map_err(|e| t.ctx.invalid(e))? {
            decoder.event(event, &mut out)?;
            if decoder.is_done() {
                break;
            }
        }
        self.queue.extend(out);
        if !decoder.is_done() {
            self.phase = Phase::Read(reading);
        }
        // Done: the response is dropped here, which releases the connection.
        Ok(())
    }
}
