//! The Agent Client Protocol (v1, <https://agentclientprotocol.com>) as Paddock speaks it:
//! [`peer`] carries JSON-RPC over newline-delimited streams in both directions; [`updates`]
//! and [`replay`] turn Paddock's events and stored messages into `session/update`s;
//! [`permission`] maps approval requests to permission options and back; [`prompt`] reads a
//! client's prompt blocks. Pure: no Paddock runtime, no processes; the host serves it.
//!
//! v1 is the stable protocol. Its client file-system and terminal methods are optional and
//! Paddock never uses them: the agent's files are reached through its own fenced tools.

pub mod client;
pub mod outgoing;
pub mod peer;
pub mod permission;
pub mod prompt;
pub mod replay;
pub mod updates;

/// The ACP major version spoken.
pub const PROTOCOL_VERSION: u64 = 1;

/// JSON-RPC error codes (the JSON-RPC 2.0 ones ACP uses).
pub mod codes {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
    /// ACP: the resource (a session) does not exist.
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
}
