//! paddock-host: settings + flags into a runnable agent; keys; the keychain.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod keychain;
mod runtime;
