//! End-to-end tests of the `paddock` binary against an in-process fake model server on
//! 127.0.0.1. Every run gets its own project folder, data directory and HOME.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// A scenario reads top to bottom; its length is its story.
#![allow(clippy::too_many_lines)]

mod acp;
mod acp_client;
mod blocking_open;
mod common;
mod cost;
mod doctor;
mod exec;
mod exit_codes;
mod external_agent;
mod external_worktree;
mod hooks;
mod hooks_hostile;
mod hostile;
mod hostile_files;
mod hostile_grants;
mod hostile_trust;
mod images;
mod images_read;
mod instructions;
mod local_models;
mod managed;
mod mcp;
mod mentions;
mod network;
mod plan;
mod prompts;
mod published_agent;
mod resume;
mod rewind;
mod rules;
mod scripting;
mod sessions;
mod terminal_text;
mod wall_places;
mod worktree;
