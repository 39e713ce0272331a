//! Paddock's own commands on what a session wrote (git in its checkout, the fetch and merge
//! that land it, the copy of a folder) run behind a wall of their own: only what the
//! operation must write is writable, no home, no keys, no network. The wall itself is the
//! host's (`paddock-sandbox`); this crate says what each operation may touch.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

/// What one of Paddock's own commands may touch besides the system's programs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reach {
    /// The only places it may write.
    pub writable: Vec<PathBuf>,
    /// Places it reads besides those.
    pub readable: Vec<PathBuf>,
}

impl Reach {
    /// Reads `readable`, writes nothing.
    pub fn reading(readable: &[&Path]) -> Self {
        Self {
            writable: Vec::new(),
            readable: readable.iter().map(|p| p.to_path_buf()).collect(),
        }
    }

    /// Writes `writable` (and reads it), reads `readable`.
    pub fn writing(writable: &[&Path], readable: &[&Path]) -> Self {
        Self {
            writable: writable.iter().map(|p| p.to_path_buf()).collect(),
            readable: readable.iter().map(|p| p.to_path_buf()).collect(),
        }
    }
}

/// Builds the process for one of Paddock's own commands behind a wall.
pub trait GitWall: Send + Sync + std::fmt::Debug {
    /// `program args` in `cwd`, able to write only `reach.writable`, with a scrubbed
    /// environment and no network. `Err` says why no such process can be built.
    fn command(
        &self,
        program: &str,
        args: &[OsString],
        cwd: &Path,
        reach: &Reach,
    ) -> Result<Command, String>;
}

/// The wall a layout's commands run behind; `None` runs them bare (tests of this crate).
pub type Wall = Option<Arc<dyn GitWall>>;

/// The process for `program args` in `cwd`: behind `wall` when there is one.
pub(crate) fn process(
    wall: &Wall,
    program: &str,
    args: Vec<OsString>,
    cwd: &Path,
    reach: &Reach,
) -> Result<Command, crate::WorktreeError> {
    match wall {
        Some(wall) => {
            let mut c = wall
                .command(program, &args, cwd, reach)
                .map_err(|detail| crate::WorktreeError::Wall { detail })?;
            c.current_dir(cwd);
            Ok(c)
        }
        None => {
            let mut c = Command::new(program);
            c.args(args).current_dir(cwd);
            Ok(c)
        }
    }
}
