//! paddock-acp's tests: the peer over in-memory pipes, prompts read from content blocks,
//! permission answers, and event mapping.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod mapping;
mod peer;
