//! Shared pieces of the provider tests: providers pointed at a fake server, a test tool,
//! and helpers to drain streams.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use futures_util::StreamExt;
use paddock_core::{
    Agent, AgentConfig, GrantPolicy, Model, ModelError, ModelEvent, ModelRequest, Tool,
    ToolContext, ToolError, ToolOutput, ToolRegistry,
};
use paddock_fake_model::FakeServer;
use paddock_protocol::{Message, ToolSpec};
use paddock_providers::{ApiKey, Provider, ProviderConfig, ProviderKind, RetryNotice, RetryPolicy};
use serde_json::{Value, json};

pub const KEY: &str = "sk-test-0123456789abcdef";

/// Retries fast enough for tests, bounded like production.
pub fn fast_retry() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 3,
        base_delay: Duration::from_millis(5),
        max_delay: Duration::from_millis(20),
        max_retry_after: Duration::from_secs(5),
    }
}

pub fn config(kind: ProviderKind, server: &FakeServer) -> ProviderConfig {
    ProviderConfig::new(kind)
        .with_base_url(server.url())
        .with_api_key(ApiKey::new(KEY))
        .with_retry(fast_retry())
        .with_timeouts(Duration::from_secs(5), Duration::from_secs(5))
}

pub fn provider(kind: ProviderKind, server: &FakeServer) -> Provider {
    Provider::new(config(kind, server)).unwrap()
}

/// A provider that records every retry notice it gives.
pub fn provider_with_notices(
    kind: ProviderKind,
    server: &FakeServer,
) -> (Provider, Arc<Mutex<Vec<RetryNotice>>>) {
    let notices = Arc::new(Mutex::new(Vec::new()));
    let sink = notices.clone();
    let cfg = config(kind, server).on_retry(move |n| sink.lock().unwrap().push(n.clone()));
    (Provider::new(cfg).unwrap(), notices)
}

pub fn echo_spec() -> ToolSpec {
    ToolSpec {
        name: "echo".into(),
        description: "Repeats the text it is given.".into(),
        input_schema: json!({
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"]
        }),
    }
}

/// Everything one call returned: its events, and the error that ended it if any.
pub struct Drained {
    pub events: Vec<ModelEvent>,
    pub error: Option<ModelError>,
}

impl Drained {
    pub fn text(&self) -> String {
        self.events
            .iter()
            .filter_map(|e| match e {
                ModelEvent::TextDelta(t) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }
}

pub async fn drain(model: &dyn Model, messages: &[Message], tools: &[ToolSpec]) -> Drained {
    let request = ModelRequest {
        model: "test-model",
        system: Some("You are terse."),
        messages,
        tools,
        max_output_tokens: Some(256),
    };
    let mut stream = model.stream(&request);
    let mut events = Vec::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(e) => events.push(e),
            Err(e) => {
                assert!(stream.next().await.is_none(), "nothing may follow an error");
                return Drained {
                    events,
                    error: Some(e),
                };
            }
        }
    }
    Drained {
        events,
        error: None,
    }
}

pub async fn ask(model: &dyn Model, prompt: &str) -> Drained {
    drain(model, &[Message::user_text(prompt)], &[echo_spec()]).await
}

/// The test tool: echoes `text`, and remembers each input it ran with.
#[derive(Default)]
pub struct EchoTool {
    spec: Option<ToolSpec>,
    pub calls: Mutex<Vec<Value>>,
}

impl EchoTool {
    pub fn new() -> Arc<Self> {
        Arc::new(Self {
            spec: Some(echo_spec()),
            calls: Mutex::new(Vec::new()),
        })
    }
}

#[async_trait]
impl Tool for EchoTool {
    fn spec(&self) -> &ToolSpec {
        self.spec.as_ref().unwrap()
    }

    async fn call(&self, input: &Value, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        self.calls.lock().unwrap().push(input.clone());
        let text = input
            .get("text")
            .and_then(Value::as_str)
            .ok_or_else(|| ToolError::InvalidInput("text: required string".into()))?;
        Ok(ToolOutput::ok(format!("echo: {text}")))
    }
}

/// An agent on `model` that may use the echo tool.
pub fn agent(model: Arc<dyn Model>, echo: Arc<EchoTool>) -> Agent {
    let mut registry = ToolRegistry::new();
    registry.register(echo).unwrap();
    let mut config = AgentConfig::new("tester", "test-model");
    config.system_prompt = Some("You are terse.".into());
    config.grants = GrantPolicy::allowing(&["echo"]);
    Agent::new(config, model, Arc::new(registry))
}

/// A vendor stream kept in `tests/it/fixtures`.
pub fn fixture(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/it/fixtures")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Compares a whole JSON document with `tests/it/expected/<name>.json`. With
/// `UPDATE_EXPECTED=1` the file is rewritten instead (review the diff before committing).
pub fn assert_expected(name: &str, actual: &Value) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/it/expected")
        .join(format!("{name}.json"));
    let pretty = serde_json::to_string_pretty(actual).unwrap();
    if std::env::var_os("UPDATE_EXPECTED").is_some() {
        std::fs::write(&path, format!("{pretty}\n")).unwrap();
        return;
    }
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_EXPECTED=1 writes it)", path.display()));
    let expected: Value = serde_json::from_str(&text).unwrap();
    assert!(
        *actual == expected,
        "{} differs from what was sent:\n{pretty}",
        path.display()
    );
}
