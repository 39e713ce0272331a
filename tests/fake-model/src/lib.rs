//! A fake model server for Paddock's tests. It listens on 127.0.0.1, speaks Anthropic's
//! Messages and OpenAI's Chat Completions streaming formats, plays scripted replies in
//! order (text, tool calls, thinking, usage), records every request, and injects faults
//! (HTTP errors with Retry-After, dropped connections, malformed SSE, in-stream errors,
//! hangs, slow drips, context overflows). It also answers the side endpoints that tell a
//! model's context window (llama.cpp `/props`, Ollama `/api/show`, LM Studio
//! `/api/v0/models`), can refuse requests larger than a window, can refuse to stream
//! calls with tools as llama-cpp-python does, and answers unstreamed requests with one
//! JSON document. Use it in-process
//! through [`FakeServer`], or run the `paddock-fake-model` binary and script it with a
//! JSON file or the `/_fake/` endpoints (see README.md).

mod anthropic;
mod body;
mod chat;
mod context;
mod openai;
mod probe;
mod record;
mod script;
mod server;

pub use context::estimate_tokens;
pub use probe::{LmStudioModel, OllamaModel, ProbeOverride, Probes};
pub use record::{Outcome, RecordedRequest};
pub use script::{
    Fault, Quirks, Reply, Script, ScriptCall, StreamRefusal, Thinking, ToolRefusal, Usage,
};
pub use server::FakeServer;
