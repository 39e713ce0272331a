//! Paddock's MCP client, on the official `rmcp` SDK. It starts a project's MCP servers
//! (stdio and streamable HTTP) and turns each of their tools into a kernel tool named
//! `mcp__<server>__<tool>`, registered as a runtime tool: it skips preset and allow list but
//! obeys the deny list.
//!
//! ```no_run
//! # async fn demo(settings: paddock_protocol::ProjectSettings) {
//! use paddock_mcp::{McpOptions, McpServers};
//! let servers = McpServers::new(McpOptions::default());
//! servers.start(&settings.mcp_servers).await;
//! let mut registry = paddock_core::ToolRegistry::new();
//! let warnings = servers.register(&mut registry);
//! # let _ = warnings;
//! // ... run agents with the registry; show servers.statuses() ...
//! servers.shutdown().await;
//! # }
//! ```

mod content;
mod lifeline;
mod naming;
mod server;
mod servers;
mod shell_path;
mod start_error;
mod status;
mod stderr;
mod stdio;
mod tool;
pub mod vars;

pub use content::{result_text, to_output};
pub use naming::{MAX_NAME_LEN, PREFIX, tool_name};
pub use servers::{
    DEFAULT_START_TIMEOUT, MAX_CALL_TIMEOUT_SECS, McpOptions, McpServers, ServerPath,
};
pub use shell_path::{login_shell_path, login_shell_path_or_current};
pub use stderr::MAX_KEPT as MAX_STDERR_KEPT;
pub use tool::{DEFAULT_CALL_TIMEOUT, McpTool};
