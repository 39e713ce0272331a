//! A project folder as a shell uses it: its settings, API keys (keychain or environment),
//! tools and MCP servers, sessions and runs, behind one API for the CLI and the app. The
//! shells depend on this crate and on the protocol only.

pub mod attach;
mod checkpoints;
mod compact;
pub mod edit;
mod error;
pub mod explain;
pub mod external;
mod field_error;
mod git_wall;
mod hook_list;
pub mod hooks;
pub mod instructions;
mod keys;
mod landing_trust;
mod live;
pub mod managed;
mod mcp;
pub mod mcp_import;
pub mod mentions;
mod models;
pub mod network;
mod options;
mod places;
mod prepare;
pub mod pricing;
mod project;
pub mod prompt;
pub mod prompts;
mod resolved;
mod rewind;
mod rule_paths;
pub mod rules;
mod runs;
mod runtime;
mod service;
pub mod settings;
mod tool_modes;
mod tools;
pub mod trust;
pub mod workspace;
mod worktree;
mod worktree_message;
mod worktree_setup;

pub use checkpoints::ProjectCheckpoints;
pub use error::{
    AgentConfigError, AttachError, HistoryError, HostError, HostErrorKind, RequestError,
};
pub use git_wall::OwnWall;
pub use keys::{
    EnvKeys, KEYCHAIN_SERVICE, KeyError, KeyStore, Keychain, mcp_vars, resolve_key, set_mcp_value,
};
pub use live::{LiveProject, McpRun};
pub use mcp::mcp_options;
pub use models::Connection;
pub use options::RunOptions;
pub use paddock_worktree::BRANCH_PREFIX as WORKTREE_BRANCH_PREFIX;
pub use project::{Project, WorktreeWall, canonical_dir};
pub use resolved::Resolved;
pub use rewind::RewindRequest;
pub use runs::LiveRuns;
pub use runtime::{MAIN_AGENT, ProjectRuntime};
pub use service::{Approver, PreparedRun, RunReport, RunRequest, RunService, SessionTarget};
pub use tool_modes::TOOL_MODES_FILE;
pub use tools::{ProjectTools, RunLimits, TeamModel};
pub use worktree::{DiscardReport, NewWorktree, WORKTREES_DIR_ENV};
pub use worktree_setup::SETUP_TIMEOUT_SECS;

// What the shells name of the crates below, so that they depend on this crate alone.
pub use paddock_changes::unified as unified_diff;
pub use paddock_core::structured::check_schema;
pub use paddock_core::tool::one_line;
pub use paddock_core::{AskPolicy, EventSink, FnSink, ModelError, blocking};
pub use paddock_guard::{
    FileKind, Links, PathError, UntrustedFileError, display_rel, open_regular, read_regular,
    read_regular_text, read_untrusted,
};
pub use paddock_mcp::{DEFAULT_START_TIMEOUT as MCP_START_TIMEOUT, ServerPath};
pub use paddock_providers::ApiKey;

/// When this process was started as the sandbox helper (`PROGRAM __sandbox-helper ...`):
/// builds the wall and becomes the command; returns only the exit status of a failure.
/// Call first thing in `main`, before any thread starts.
pub fn run_sandbox_helper_if_asked() -> Option<i32> {
    #[cfg(target_os = "linux")]
    {
        let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
        if args.first().map(|a| a.as_os_str()) == Some(paddock_sandbox::HELPER_SUBCOMMAND.as_ref())
        {
            return Some(paddock_sandbox::helper::main(&args));
        }
    }
    None
}

/// Makes this program its own sandbox helper (it must call
/// [`run_sandbox_helper_if_asked`] first thing).
pub fn use_this_program_as_sandbox_helper() {
    #[cfg(target_os = "linux")]
    if let Some(helper) = paddock_sandbox::HelperCommand::this_program() {
        paddock_sandbox::helper::set_default(helper);
    }
}

/// Ends, in the background, what an earlier Paddock that died left running behind a wall
/// (issue 50): this user's processes marked with a Paddock process that no longer runs. Call
/// once when the CLI or the app starts (never in the sandbox helper).
pub fn sweep_walls_left_behind() {
    #[cfg(target_os = "linux")]
    {
        let sweep = || {
            let killed = paddock_sandbox::sweep_walls_left_behind();
            if !killed.is_empty() {
                tracing::info!(
                    processes = killed.len(),
                    "ended walls a Paddock that died left running"
                );
            }
        };
        let _ = std::thread::Builder::new()
            .name("paddock-sweep".into())
            .spawn(sweep);
    }
}

/// Stored sessions: the store, its errors and exports.
pub mod session {
    pub use paddock_session::{
        DATA_DIR_ENV, INTERRUPTED_RESULT, LastRewind, LoadedSession, RewindPoint, SessionError,
        SessionStore, data_dir, new_session_id, run_costs, session_cost, to_json, to_markdown,
        write_export,
    };
}
