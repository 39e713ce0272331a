//! The second layer under the wall: before Paddock's own git uses a git folder a session
//! could write, every entry in it must be a plain folder or a regular file. A link there
//! (`COMMIT_EDITMSG` -> `~/.bashrc`) would have git write through it; a fifo would hang it.

use std::path::{Path, PathBuf};

use crate::{WorktreeError, io};

/// Entries looked at in one git folder at most; a larger one is refused, not half-checked.
/// A checkout sharing the project's objects holds a few hundred; a plain copy's, its loose
/// objects (a million is far past any real one).
pub const MAX_GIT_ENTRIES: usize = 1_000_000;
/// Largest `objects/info/alternates` read (one line naming the project's objects).
const MAX_ALTERNATES_BYTES: u64 = 64 * 1024;

/// Refuses, naming it, the first entry under `git_dir` that is not a folder or a regular
/// file (a link, a fifo, a socket, a device), and a folder with more than
/// [`MAX_GIT_ENTRIES`] entries.
pub(crate) fn only_plain_entries(git_dir: &Path) -> Result<(), WorktreeError> {
    let mut pending: Vec<PathBuf> = vec![git_dir.to_path_buf()];
    let mut seen = 0usize;
    while let Some(dir) = pending.pop() {
        let entries =
            std::fs::read_dir(&dir).map_err(io(format!("cannot read {}", dir.display())))?;
        for entry in entries {
            let entry = entry.map_err(io(format!("cannot read {}", dir.display())))?;
            seen += 1;
            if seen > MAX_GIT_ENTRIES {
                return Err(WorktreeError::Tampered {
                    what: format!(
                        "{} holds more than {MAX_GIT_ENTRIES} entries",
                        git_dir.display()
                    ),
                });
            }
            // The entry's own type: a link is never followed.
            let kind = entry
                .file_type()
                .map_err(io(format!("cannot read {}", entry.path().display())))?;
            if kind.is_dir() {
                pending.push(entry.path());
            } else if !kind.is_file() {
                let what = if kind.is_symlink() {
                    "a link"
                } else {
                    "not a regular file"
                };
                return Err(WorktreeError::Tampered {
                    what: format!("{} is {what}", entry.path().display()),
                });
            }
        }
    }
    Ok(())
}

/// The checkout's git folder is as Paddock made it: a real folder, no `commondir` leading
/// elsewhere, objects borrowed only from the project's repository.
pub(crate) fn verify(checkout: &Path, common_dir: &Path) -> Result<(), WorktreeError> {
    let git_dir = checkout.join(".git");
    let meta = std::fs::symlink_metadata(&git_dir)
        .map_err(io(format!("cannot open {}", git_dir.display())))?;
    if !meta.is_dir() {
        return Err(WorktreeError::Tampered {
            what: ".git is not a folder".into(),
        });
    }
    only_plain_entries(&git_dir)?;
    if std::fs::symlink_metadata(git_dir.join("commondir")).is_ok() {
        return Err(WorktreeError::Tampered {
            what: ".git/commondir was added".into(),
        });
    }
    let alternates = git_dir.join("objects/info/alternates");
    if common_dir == git_dir {
        // A plain copy's repository is its own: it borrows nothing.
        if std::fs::symlink_metadata(&alternates).is_ok() {
            return Err(WorktreeError::Tampered {
                what: "objects/info/alternates was added".into(),
            });
        }
        return Ok(());
    }
    // In a folder the session writes: a regular file of a few lines, never a FIFO.
    let text = paddock_guard::read_untrusted(&alternates, MAX_ALTERNATES_BYTES).unwrap_or_default();
    let expected = common_dir.join("objects");
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let named = lines
        .first()
        .and_then(|l| Path::new(l.trim()).canonicalize().ok());
    if lines.len() != 1 || named.is_none() || named != expected.canonicalize().ok() {
        return Err(WorktreeError::Tampered {
            what: "objects/info/alternates no longer names only the project's objects".into(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_or_fifo_anywhere_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path().join(".git");
        std::fs::create_dir_all(git.join("logs/refs/heads")).unwrap();
        std::fs::write(git.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        assert!(only_plain_entries(&git).is_ok());
        let link = git.join("logs/refs/heads/main");
        std::os::unix::fs::symlink("/etc/passwd", &link).unwrap();
        let err = only_plain_entries(&git).unwrap_err().to_string();
        assert!(err.contains("logs/refs/heads/main is a link"), "{err}");
        std::fs::remove_file(&link).unwrap();
        let fifo = git.join("COMMIT_EDITMSG");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());
        let err = only_plain_entries(&git).unwrap_err().to_string();
        assert!(
            err.contains("COMMIT_EDITMSG is not a regular file"),
            "{err}"
        );
    }
}
