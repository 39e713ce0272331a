//! One MCP tool as a kernel [`Tool`]. Every failure becomes a result the model reads: a
//! server that is gone, a call that takes too long, a protocol error.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use paddock_core::tool::coerce_to_schema;
use paddock_core::{Tool, ToolContext, ToolError, ToolOutput};
use paddock_protocol::ToolSpec;
use rmcp::ServiceError;
use rmcp::model::{CallToolRequestParams, Tool as RemoteTool};
use serde_json::Value;

use crate::content;
use crate::server::Server;

/// Per-call time limit when the settings give none.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);
/// The executor's own limit sits a little above ours, so our clearer message wins.
const EXECUTOR_MARGIN: Duration = Duration::from_secs(5);

/// An MCP tool, named `mcp__<server>__<tool>` for the model.
pub struct McpTool {
    spec: ToolSpec,
    remote_name: String,
    server: Arc<Server>,
    timeout: Duration,
    /// The server says the tool only reads (`readOnlyHint`). Trusted as far as the server is:
    /// a server that lies already runs unsandboxed code of its own.
    read_only: bool,
}

impl McpTool {
    pub fn new(name: String, remote: &RemoteTool, server: Arc<Server>, timeout: Duration) -> Self {
        let description = remote
            .description
            .as_deref()
            .filter(|d| !d.trim().is_empty())
            .map(str::to_owned)
            .or_else(|| remote.title.clone())
            .unwrap_or_else(|| format!("Tool '{}' of MCP server '{}'.", remote.name, server.name));
        Self {
            spec: ToolSpec {
                name,
                description,
                input_schema: Value::Object((*remote.input_schema).clone()),
            },
            remote_name: remote.name.to_string(),
            server,
            timeout,
            read_only: remote
                .annotations
                .as_ref()
                .and_then(|a| a.read_only_hint)
                .unwrap_or(false),
        }
    }

    /// The tool's name on its server.
    pub fn remote_name(&self) -> &str {
        &self.remote_name
    }

    pub fn server_name(&self) -> &str {
        &self.server.name
    }

    fn label(&self) -> String {
        format!(
            "'{}' on MCP server '{}'",
            self.remote_name, self.server.name
        )
    }

    fn gone_message(&self, reason: &str) -> ToolOutput {
        ToolOutput::error(format!(
            "MCP server '{}' went away while '{}' was running: {reason}. The call may or \
             may not have taken effect.",
            self.server.name, self.remote_name
        ))
    }

    async fn failure(&self, e: ServiceError) -> ToolOutput {
        match e {
            ServiceError::McpError(data) => ToolOutput::error(format!(
                "MCP server '{}' refused '{}': {}",
                self.server.name, self.remote_name, data.message
            )),
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                let server = &self.server;
                server.check_alive().await;
                // A process watcher usually knows why a moment later.
                let _ = tokio::time::timeout(Duration::from_secs(1), server.lifeline.gone()).await;
                match server.lifeline.reason() {
                    Some(reason) => self.gone_message(&reason),
                    None => ToolOutput::error(format!(
                        "The connection to MCP server '{}' failed while calling '{}': {e}.",
                        server.name, self.remote_name
                    )),
                }
            }
            other => ToolOutput::error(format!("Calling {} failed: {other}", self.label())),
        }
    }
}

#[async_trait]
impl Tool for McpTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn timeout(&self) -> Option<Duration> {
        Some(self.timeout + EXECUTOR_MARGIN)
    }

    fn mutates(&self) -> bool {
        !self.read_only
    }

    async fn call(&self, input: &Value, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        // The arguments are sent owned: one copy, coerced in place.
        let mut input = input.clone();
        coerce_to_schema(&self.spec.input_schema, &mut input);
        let arguments = match input {
            Value::Object(map) => Some(map),
            Value::Null => None,
            other => {
                return Err(ToolError::InvalidInput(format!(
                    "expected a JSON object of arguments, got {}",
                    json_kind(&other)
                )));
            }
        };
        let lifeline = &self.server.lifeline;
        if let Some(reason) = lifeline.reason() {
            return Ok(ToolOutput::error(format!(
                "MCP server '{}' is not running ({reason}); '{}' was not called.",
                self.server.name, self.remote_name
            )));
        }
        let mut params = CallToolRequestParams::new(self.remote_name.clone());
        params.arguments = arguments;
        // Dropping the request (timeout, cancel) sends the server a cancellation.
        let call = self.server.peer.call_tool(params);
        let output = tokio::select! {
            biased;
            () = lifeline.gone() => self.gone_message(&lifeline.reason().unwrap_or_default()),
            r = tokio::time::timeout(self.timeout, call) => match r {
                Ok(Ok(result)) => content::to_output(&result),
                Ok(Err(e)) => self.failure(e).await,
                Err(_) => ToolOutput::error(format!(
                    "{} did not answer within {} s; the call was cancelled.",
                    self.label(),
                    self.timeout.as_secs()
                )),
            },
        };
        Ok(output)
    }
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
