//! The wall Paddock's own commands on session-written data run behind (issue 50, class 1):
//! git in a checkout, the fetch and merge that land it, the copy of a folder. The same
//! engine as bash's, writing only what the operation names, with no home files, no keys,
//! none of Paddock's own data and no network. Where this machine has no wall at all the
//! command runs bare (the worktree crate's check of every `.git` it uses still holds then).

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;

use paddock_protocol::WorkspaceMode;
use paddock_sandbox::{Confinement, SandboxConfig, scrubbed_env};

/// Where temporary files go inside: the wall's own empty `/tmp`.
const WALL_TMP: &str = "/tmp";

/// What one of Paddock's own commands may touch besides the system's programs.
#[derive(Debug, Clone, Copy)]
pub struct OwnReach<'a> {
    /// The only places it may write.
    pub writable: &'a [PathBuf],
    /// Places it reads besides those.
    pub readable: &'a [PathBuf],
    /// Paddock's data folders: never visible to its own commands either.
    pub own: &'a [PathBuf],
}

/// The process for `program args` in `cwd` behind the wall, writing only `reach.writable`,
/// with a scrubbed environment and no network. `Err` says why no such process can be built.
pub fn own_command(
    program: &str,
    args: &[OsString],
    cwd: &Path,
    reach: OwnReach<'_>,
) -> Result<Command, String> {
    let config = SandboxConfig {
        own: reach.own.to_vec(),
        readable: reach.readable.to_vec(),
        // No wall on this machine: bare, as before (the `.git` checks still hold).
        allow_unconfined: true,
        ..SandboxConfig::default()
    };
    let confinement = Confinement::prepare(&config, WorkspaceMode::Project, cwd, reach.writable)
        .map_err(|e| e.to_string())?;
    let args: Vec<&OsStr> = args.iter().map(OsString::as_os_str).collect();
    let mut cmd = confinement.std_command(OsStr::new(program), &args);
    cmd.env_clear().envs(scrubbed_env(
        std::env::vars_os(),
        OsStr::new(WALL_TMP),
        cwd.as_os_str(),
        reach.writable,
    ));
    Ok(cmd)
}
