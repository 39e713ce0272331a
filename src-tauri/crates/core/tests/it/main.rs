//! The core's integration tests: one binary, one module per area.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod compaction;
mod executor;
mod exits;
mod grants;
mod history_prop;
mod hooks;
mod loops;
mod recording;
mod rules;
mod structured;
