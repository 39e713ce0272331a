//! Paddock's model providers: Anthropic (Messages API), OpenAI (Chat Completions) and
//! OpenAI-compatible local servers (Ollama, vLLM, LM Studio, llama.cpp), each implementing
//! the kernel's [`paddock_core::Model`].
//!
//! All of them stream over SSE (a server that refuses to stream a call with tools is asked
//! again without streaming, and remembered), retry 429 / 5xx / connection failures with
//! backoff that honours Retry-After, time out when a server goes quiet, stop at once when
//! the stream is dropped, and classify errors into [`paddock_protocol::ErrorKind`].
//! Tool calls a local model prints as text are recovered ([`extract_tool_calls`]). Keys come from the
//! caller as [`ApiKey`]s and never appear in errors, logs or debug output.
//! [`Provider::context_window`] says how many tokens a model holds;
//! [`Provider::probe_tools`] checks that a model calls tools on its server.

mod anthropic;
mod catalog;
mod config;
mod driver;
mod errors;
mod http;
mod images;
mod key;
mod openai;
mod pricing;
mod provider;
mod refusals;
mod retry;
mod sse;
mod tool_mode;
mod vision;
mod window;

pub use anthropic::API_VERSION as ANTHROPIC_API_VERSION;
pub use catalog::{ConnectionReport, ModelInfo};
pub use config::{
    ProviderConfig, ProviderKind, RetryHook, RetryNotice, RetryPolicy, ToolCalling,
    normalize_base_url,
};
pub use key::ApiKey;
pub use openai::LOCAL_MAX_OUTPUT_TOKENS;
pub use paddock_text_calls::{MAX_SCAN_BYTES, TextToolCall, extract_tool_calls, strip_tool_calls};
pub use pricing::{listed_price, pricing_for};
pub use provider::Provider;
pub use provider::tool_probe::{PROBE_TOOL, TOOL_PROBE_TIMEOUT, ToolCallMode, ToolProbe};
pub use tool_mode::{PromptedHook, TEXT_CALLS_TO_PROMPT};
pub use vision::takes_images;
pub use window::{ContextWindow, DEFAULT_WINDOW, PROBE_TIMEOUT, WindowSource, known_window};
