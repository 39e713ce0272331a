//! paddock-rules' integration tests: one binary, one module per area.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
mod compile_errors;
mod corpus;
mod differential;
mod parse;
mod properties;
mod propose;
mod shell_state;
mod verdicts;
