//! paddock-hooks' integration tests: one binary, one module per area.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod claude_examples;
mod common;
mod decisions;
mod digest;
mod failures;
mod refusals;
mod rules;
mod scripts;
mod shape;
