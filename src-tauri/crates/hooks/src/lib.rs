//! Hooks: commands a project runs at moments of a run (a session starts, a prompt comes in,
//! a tool is called or has run, the agent stops, the conversation is compacted). This crate
//! reads hook configuration (Paddock's, Claude Code's and Codex's shapes), says which hooks
//! an event matches, and turns a hook's exit code and output into a decision.
//!
//! It is pure: it runs nothing and reads no file. The host runs each matching hook inside
//! the OS wall, with its time limit, and hands back how it ended ([`HookProcess`]). Matching by
//! argument uses `paddock-rules`, the grants' own matcher. A hook's decision never widens a
//! grant (see [`Decision::Allow`]). [`Hook::scripts`] says which files a command may run or
//! read as its script, for the host to pin their content in the hook's trust.

mod config;
mod digest;
mod error;
mod event;
mod hook;
mod matcher;
mod output;
mod rule;
mod schema;
mod spelling;
mod subject;
mod text;
mod tools;

pub use config::HooksConfig;
pub use config::parse::{
    MAX_ARG_BYTES, MAX_ARGS, MAX_COMMAND_BYTES, MAX_HOOKS, MAX_STATUS_MESSAGE_BYTES,
};
pub use error::HookConfigError;
pub use event::{HookPoint, HookPointExt, parse_event};
pub use hook::outcome::{Decision, EndRun, HookEffect, HookProcess, combine};
pub use hook::script::{CommandScripts, PROJECT_VARS, ScriptPath};
pub use hook::{DEFAULT_TIMEOUT_SECS, Hook, HookId, Invocation, MAX_TIMEOUT_SECS, OnError};
pub use matcher::MAX_MATCHER_BYTES;
pub use output::MAX_REWRITTEN_INPUT_BYTES;
pub use rule::MAX_RULE_BYTES;
pub use spelling::{MAX_TEXT_PATHS, text_paths};
pub use subject::{CallInfo, CompactTrigger, SessionSource, Subject};
pub use text::MAX_TEXT_BYTES;
pub use tools::{PADDOCK_TOOLS, paddock_name};
