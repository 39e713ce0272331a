//! The wall Paddock's own commands on session-written data run behind (issue 50, class 1),
//! as a worktree layout carries it: `paddock_wall::own` with Paddock's data folders hidden.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use paddock_wall::own::{OwnReach, own_command};
use paddock_worktree::{GitWall, Reach, Wall};

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
        let reach = OwnReach {
            writable: &reach.writable,
            readable: &reach.readable,
            own: &self.own,
        };
        own_command(program, args, cwd, reach)
    }
}
