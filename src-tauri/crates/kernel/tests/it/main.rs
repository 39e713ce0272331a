//! The kernel's integration tests: one binary, one module per area.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod bash;
mod common;
mod delegation;
mod escape;
mod executor;
mod exits;
mod grants;
mod history_prop;
mod loops;
mod sessions;
mod settings;
mod structured;
mod tools_files;
mod tools_support;
