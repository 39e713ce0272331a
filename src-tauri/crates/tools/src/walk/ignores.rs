//! The ignore files of a walk, read by Paddock's own opener instead of the walker's: the
//! `ignore` crate opens `.gitignore` with a plain blocking open, so a FIFO swapped in after
//! a check hung the search (issue 50, item 6). Here each folder's files are read once,
//! without blocking, as regular files of bounded size, and matched with the crate's own
//! gitignore matcher in the crate's order: `.ignore` over `.gitignore` over
//! `.git/info/exclude`, the deepest folder first within each.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use paddock_guard::{Links, UntrustedFileError, read_regular};

/// Largest ignore file read (a real one is a few kilobytes).
pub const MAX_IGNORE_BYTES: u64 = 1024 * 1024;
/// The files read in each folder, most binding first.
const IGNORE_FILES: [&str; 3] = [".ignore", ".gitignore", ".git/info/exclude"];

/// One folder's rules, one matcher per file of [`IGNORE_FILES`].
struct Level {
    matchers: [Gitignore; 3],
}

/// The rules of every folder the walk entered, keyed by folder.
pub struct Ignores {
    root: PathBuf,
    levels: RwLock<HashMap<PathBuf, Arc<Level>>>,
}

impl Ignores {
    /// The rules of a walk from `root`, whose own files are read now: `Err` says why they
    /// cannot be (then nothing is walked).
    pub fn new(root: &Path) -> Result<Self, String> {
        let ignores = Self {
            root: root.to_path_buf(),
            levels: RwLock::default(),
        };
        ignores.enter(root)?;
        Ok(ignores)
    }

    /// Reads the files of `dir`, a folder the walk is about to enter; `Err` says why it must
    /// not (one of them is not a small regular file).
    pub fn enter(&self, dir: &Path) -> Result<(), String> {
        let level = Arc::new(read_level(dir)?);
        self.levels
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(dir.to_path_buf(), level);
        Ok(())
    }

    /// Whether the rules of the folders above `path` (up to the root) leave it out.
    pub fn ignored(&self, path: &Path, is_dir: bool) -> bool {
        let levels = self.levels.read().unwrap_or_else(PoisonError::into_inner);
        let chain: Vec<&Level> = path
            .ancestors()
            .skip(1)
            .take_while(|dir| dir.starts_with(&self.root))
            .filter_map(|dir| levels.get(dir).map(Arc::as_ref))
            .collect();
        for kind in 0..IGNORE_FILES.len() {
            for level in &chain {
                match level.matchers[kind].matched(path, is_dir) {
                    Match::None => {}
                    Match::Ignore(_) => return true,
                    Match::Whitelist(_) => return false,
                }
            }
        }
        false
    }
}

/// The rules of `dir`: each file absent (no rules) or read as a regular file.
fn read_level(dir: &Path) -> Result<Level, String> {
    let read = |name: &str| -> Result<Gitignore, String> {
        let path = dir.join(name);
        if name.starts_with(".git/") && !is_git_folder(dir) {
            return Ok(Gitignore::empty());
        }
        let bytes = match read_regular(&path, MAX_IGNORE_BYTES, Links::Follow) {
            Ok(bytes) => bytes,
            Err(e) if e.is_missing() => return Ok(Gitignore::empty()),
            Err(e) => return Err(why_not(name, e)),
        };
        Ok(matcher(dir, &path, &String::from_utf8_lossy(&bytes)))
    };
    Ok(Level {
        matchers: [
            read(IGNORE_FILES[0])?,
            read(IGNORE_FILES[1])?,
            read(IGNORE_FILES[2])?,
        ],
    })
}

/// A `.git` that is a folder: a `.git` file's `gitdir:` may point anywhere, so the exclude
/// file is only read inside a real one.
fn is_git_folder(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir.join(".git")).is_ok_and(|m| m.is_dir())
}

/// The matcher of one file's `text`, as git reads it (a byte-order mark before the first
/// line is dropped; a line that is no valid glob is skipped, as the walker did).
fn matcher(dir: &Path, path: &Path, text: &str) -> Gitignore {
    let mut builder = GitignoreBuilder::new(dir);
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for line in text.lines() {
        let _skipped = builder.add_line(Some(path.to_path_buf()), line);
    }
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}

fn why_not(name: &str, e: UntrustedFileError) -> String {
    match e {
        UntrustedFileError::NotRegular { .. } => format!("its {name} is not a regular file"),
        UntrustedFileError::TooBig { .. } => {
            format!("its {name} is over {MAX_IGNORE_BYTES} bytes")
        }
        other => other.to_string(),
    }
}
