//! The checkpoint store's integration tests: one binary, one module per area.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
mod git;
mod hostile;
mod ignore_rules;
mod incremental;
mod journal;
mod roundtrip;
mod store;
mod watch;
