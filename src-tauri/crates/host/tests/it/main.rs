//! paddock-host: settings, flags and keys into a runnable agent; the run service.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod blocking_open;
mod checkpoints;
mod edit;
mod hook_pins;
mod keychain;
mod landing_trust;
mod mcp_import;
mod network;
mod own_git;
mod rule_links;
mod rules;
mod runtime;
mod settings;
mod worktree_trust;
mod worktree_wall;
