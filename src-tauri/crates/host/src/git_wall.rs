//! The wall Paddock's own commands on session-written data run behind (issue 50, class 1):
//! git in a checkout, the fetch and merge that land it, the copy of a folder. The same
//! engine as bash's, writing only what the operation names, with no home files, no keys,
//! none of Paddock's own data and no network. Where this machine has no wall at all the
//! command runs bare; the worktree crate's check of every `.git` it uses still holds then.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use paddock_protocol::WorkspaceMode;
use paddock_sandbox::{Confinement, SandboxConfig, scrubbed_env};
use paddock_worktree::{GitWall, Reach, Wall};

/// Where temporary files go inside: the wall's own empty `/tmp`.
const WALL_TMP: &str = "/tmp";

/// Paddock's own wall for its commands.
#[derive(Debug, Clone)]
pub struct OwnWall {
    /// Paddock's data folders: never visible to its own commands either.
    own: Vec<PathBuf>,
}

impl OwnWall {
    /// The wall, as a layout carries it.
    pub fn shared() -> Wall {
        Some(Arc::new(Self {
            own: crate::places::data_dirs(),
        }))
    }
}

impl GitWall for OwnWall {
    fn command(
        &self,
        program: &str,
        args: &[OsString],
        cwd: &Path,
        reach: &Reach,
    ) -> Result<Command, String> {
        let config = SandboxConfig {
            own: self.own.clone(),
            readable: reach.readable.clone(),
            // No wall on this machine: bare, as before (the `.git` checks still hold).
            allow_unconfined: true,
            ..SandboxConfig::default()
        };
        let confinement =
            Confinement::prepare(&config, WorkspaceMode::Project, cwd, &reach.writable)
                .map_err(|e| e.to_string())?;
        let args: Vec<&OsStr> = args.iter().map(OsString::as_os_str).collect();
        let mut cmd = confinement.std_command(OsStr::new(program), &args);
        cmd.env_clear().envs(scrubbed_env(
            std::env::vars_os(),
            OsStr::new(WALL_TMP),
            cwd.as_os_str(),
            &reach.writable,
        ));
        Ok(cmd)
    }
}
