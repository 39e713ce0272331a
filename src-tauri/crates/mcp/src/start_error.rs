//! Why an MCP server did not start: shared by the launcher (stdio) and the server.

/// Why a server did not start. The text is what its status shows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StartError {
    #[error("invalid settings: {0}")]
    Settings(String),
    /// The command could not be run (not found, bad working directory, no pipes).
    #[error("{0}")]
    Launch(String),
    /// The process exited before the handshake ended.
    #[error("{0} during startup")]
    Exited(String),
    #[error("{0}")]
    Handshake(String),
    #[error("could not connect to {url}: {why}")]
    Connect { url: String, why: String },
    #[error("listing its tools failed: {0}")]
    ListTools(String),
    /// An HTTP header or client that cannot be set up.
    #[error("{0}")]
    Http(String),
}
