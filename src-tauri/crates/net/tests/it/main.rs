//! The network fence's tests: one binary, one module per area. Everything runs on
//! loopback against servers the tests start; nothing reaches the internet.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod host;
mod policy;
mod policy_embedded;
mod proxy_ask;
mod proxy_connect;
mod proxy_http;
mod proxy_limits;
mod proxy_own;
mod support;
