//! Which folders a checkpoint leaves out: those the workspace's ignore files ignore
//! (`.gitignore` at any depth, `.ignore`, and the root's `.git/info/exclude`), with git's
//! nesting: the deepest folder whose rules match decides, `!pattern` re-includes. Only
//! folders are left out (node_modules/, target/: big and regenerable); an ignored file in a
//! kept folder is kept (a .env is small and precious).
//!
//! Ignore files are written by the model and the cloned repository: each is read as a small
//! regular file only (`read_untrusted`), so a FIFO or a link to /dev/zero cannot hang the
//! scan; a bad one is reported and its rules are not used.

use std::path::{Path, PathBuf};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use paddock_guard::{UntrustedFileError, read_untrusted};

use super::{MAX_IGNORE_FILE_BYTES, SkipReason, Skipped};

/// The ignore files read in every folder, weakest first (`.ignore` overrides `.gitignore`,
/// as in ripgrep).
pub(crate) const IGNORE_FILES: [&str; 2] = [".gitignore", ".ignore"];
/// The repository's own excludes, read at the root only (weaker than any .gitignore).
const EXCLUDE_FILE: &str = ".git/info/exclude";

/// The rules of the folders from the root down to the one being scanned.
#[derive(Default)]
pub(crate) struct Rules {
    levels: Vec<Gitignore>,
}

impl Rules {
    /// Reads the ignore files of the folder `rel` (real location `abs`) that `present` says
    /// are there; returns whether a level was pushed (pop it with [`Rules::pop`]).
    pub fn enter(
        &mut self,
        abs: &Path,
        rel: &str,
        present: &[&str],
        skipped: &mut Vec<Skipped>,
    ) -> bool {
        let mut files: Vec<&str> = Vec::new();
        if rel.is_empty() {
            files.push(EXCLUDE_FILE);
        }
        files.extend(IGNORE_FILES.iter().filter(|f| present.contains(f)));
        let mut builder = GitignoreBuilder::new(abs);
        let mut any = false;
        for name in files {
            let path = abs.join(name);
            let shown = join(rel, name);
            let text = match read_untrusted(&path, MAX_IGNORE_FILE_BYTES) {
                Ok(text) => text,
                // Missing: nothing to read (the exclude file is looked for blindly).
                Err(UntrustedFileError::Missing { .. }) => continue,
                Err(e) if name == EXCLUDE_FILE && not_there(&e) => continue,
                Err(e) => {
                    skipped.push(bad_file(shown, e.to_string()));
                    continue;
                }
            };
            let mut errors = Vec::new();
            for line in text.lines() {
                if let Err(e) = builder.add_line(Some(PathBuf::from(name)), line) {
                    errors.push(e.to_string());
                }
            }
            if let Some(first) = errors.first() {
                let message = format!("{} line(s) not understood, first: {first}", errors.len());
                skipped.push(bad_file(shown, message));
            }
            any = true;
        }
        if !any {
            return false;
        }
        match builder.build() {
            Ok(rules) if rules.is_empty() => false,
            Ok(rules) => {
                self.levels.push(rules);
                true
            }
            Err(e) => {
                skipped.push(bad_file(join(rel, ".gitignore"), e.to_string()));
                false
            }
        }
    }

    pub fn pop(&mut self) {
        self.levels.pop();
    }

    /// Whether the folder at `abs` is ignored: the deepest rules that match decide.
    pub fn ignores_dir(&self, abs: &Path) -> bool {
        for rules in self.levels.iter().rev() {
            match rules.matched(abs, true) {
                Match::Ignore(_) => return true,
                Match::Whitelist(_) => return false,
                Match::None => {}
            }
        }
        false
    }
}

/// `.git/info/exclude` under a `.git` that is a file (a worktree) or missing.
fn not_there(e: &UntrustedFileError) -> bool {
    matches!(e, UntrustedFileError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotADirectory)
}

fn bad_file(path: String, message: String) -> Skipped {
    Skipped {
        path,
        reason: SkipReason::BadIgnoreFile { message },
    }
}

pub(crate) fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}
