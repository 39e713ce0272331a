//! The built-in tools' integration tests: one binary, one module per area.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// A scenario reads top to bottom; its length is its story.
#![allow(clippy::too_many_lines)]

mod bash;
mod bash_env;
mod changes;
mod delegation;
mod escape;
mod nested;
mod tools_files;
mod tools_support;
mod walk_ignores;
mod wall;
mod wall_autorun;
mod wall_git_gate;
mod wall_git_gate_named;
mod wall_net;
mod wall_net_calls;
mod wall_reach;
mod web_fetch;
