//! paddock-mcp's integration tests, against the real `@modelcontextprotocol/server-everything`
//! (installed by `npm ci --prefix tests/mcp-fixtures`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// A scenario reads top to bottom; its length is its story.
#![allow(clippy::too_many_lines)]

mod common;
mod everything;
mod failures;
mod lifecycle;
mod list_changed;
mod vars;
