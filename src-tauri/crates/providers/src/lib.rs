//! Paddock's model providers: Anthropic (Messages API), OpenAI (Chat Completions) and
//! OpenAI-compatible local servers (Ollama, vLLM, LM Studio, llama.cpp), each implementing
//! the kernel's [`paddock_core::Model`].
//!
//! All of them stream over SSE, retry 429 / 5xx / connection failures with backoff that
//! honours Retry-After, time out when a server goes quiet, stop at once when the stream is
//! dropped, and classify errors into [`paddock_protocol::ErrorKind`]. Keys come from the
//! caller as [`ApiKey`]s and never appear in errors, logs or debug output.
//! [`Provider::context_window`] says how many tokens a model holds.

mod anthropic;
mod catalog;
mod config;
mod driver;
mod errors;
mod http;
mod key;
mod openai;
mod provider;
mod retry;
mod sse;
mod text_calls;
mod window;

pub use anthropic::API_VERSION as ANTHROPIC_API_VERSION;
pub use catalog::{ConnectionReport, ModelInfo};
pub use config::{
    ProviderConfig, ProviderKind, RetryHook, RetryNotice, RetryPolicy, normalize_base_url,
};
pub use key::ApiKey;
pub use provider::Provider;
pub use text_calls::{TextToolCall, extract_tool_calls, strip_tool_calls};
pub use window::{ContextWindow, DEFAULT_WINDOW, PROBE_TIMEOUT, WindowSource, known_window};
