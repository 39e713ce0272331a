//! The session store's integration tests.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod compacted;
mod index;
mod records;
mod sessions;
