//! The desktop command layer without a window: the delegation functions against the fake
//! model server, and the IPC surface (argument names, error shape) on Tauri's mock runtime.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// A scenario reads top to bottom; its length is its story.
#![allow(clippy::too_many_lines)]

mod common;
mod composer;
mod contract;
mod icon;
mod ipc;
mod keys;
mod mcp;
mod rules;
mod runs;
mod worktrees;
