//! Provider tests through the real HTTP stack, against the fake model server on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod anthropic;
mod catalog;
mod compat;
mod faults;
mod openai;
mod probe;
mod prompted;
mod streaming;
mod support;
mod vision;
mod window;
