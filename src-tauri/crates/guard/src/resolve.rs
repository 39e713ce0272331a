//! Resolves a path beneath a root the way the kernel would, one component at a time,
//! following every symlink (dangling ones too) and refusing anything that leaves the root.
//! The result is a symlink-free path relative to the root's real location.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

use crate::error::{PathError, READ_ONLY_DIRS};

pub use crate::error::MAX_SYMLINK_HOPS;

/// A path inside the workspace, relative to the root's real location, with no symlink left.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// Relative to the real root; empty for the root itself.
    pub rel: PathBuf,
    /// Whether the path existed when it was resolved.
    pub exists: bool,
    /// Whether it was a directory when it was resolved.
    pub is_dir: bool,
}

impl Resolved {
    /// How the path is shown to the model: relative, with `/`, `.` for the root.
    pub fn display(&self) -> String {
        display_rel(&self.rel)
    }
}

/// `.` for the root, else the relative path with `/` separators.
pub fn display_rel(rel: &Path) -> String {
    if rel.as_os_str().is_empty() {
        return ".".to_owned();
    }
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

/// Why a resolution was refused.
#[derive(Debug)]
pub enum ResolveError {
    /// `..` climbed above the root.
    ClimbsOut,
    /// A symlink (named relative to the root) points outside.
    LinkOutside(String),
    /// Too many symlinks: a loop.
    Loop,
    Io(io::Error),
}

/// Walks `input` (already relative to the root) beneath `real_root`.
///
/// `aliases` are other absolute spellings of the root (the path the user configured, when it
/// is reached through a symlink) that absolute symlink targets may use.
pub fn resolve_beneath(
    real_root: &Path,
    aliases: &[&Path],
    input: &Path,
) -> Result<Resolved, ResolveError> {
    let mut pending: VecDeque<OsString> = VecDeque::new();
    push_front_components(&mut pending, input)?;
    // The last `user_tail` pending parts come from `input`; the rest from symlink targets.
    let mut user_tail = pending.len();
    let mut last_link = String::new();
    let mut done: Vec<OsString> = Vec::new();
    // Index in `done` of the first component that does not exist.
    let mut missing_from: Option<usize> = None;
    let mut is_dir = true;
    let mut hops = 0usize;

    loop {
        let from_user = pending.len() <= user_tail;
        let Some(part) = pending.pop_front() else {
            break;
        };
        if from_user {
            user_tail = pending.len();
        }
        if part == ".." {
            if done.pop().is_none() {
                return Err(if from_user {
                    ResolveError::ClimbsOut
                } else {
                    ResolveError::LinkOutside(last_link)
                });
            }
            if missing_from.is_some_and(|m| done.len() <= m) {
                missing_from = None;
            }
            is_dir = true;
            continue;
        }
        if missing_from.is_some() {
            done.push(part);
            continue;
        }
        let mut candidate = real_root.to_path_buf();
        candidate.extend(&done);
        candidate.push(&part);
        match std::fs::symlink_metadata(&candidate) {
            Ok(meta) if meta.file_type().is_symlink() => {
                hops += 1;
                if hops > MAX_SYMLINK_HOPS {
                    return Err(ResolveError::Loop);
                }
                let target = std::fs::read_link(&candidate).map_err(ResolveError::Io)?;
                let mut link_rel = PathBuf::new();
                link_rel.extend(&done);
                link_rel.push(&part);
                last_link = display_rel(&link_rel);
                if target.is_absolute() {
                    let Some(inside) = strip_root(&target, real_root, aliases) else {
                        return Err(ResolveError::LinkOutside(last_link));
                    };
                    done.clear();
                    push_front_components(&mut pending, &inside)?;
                } else {
                    push_front_components(&mut pending, &target)?;
                }
            }
            Ok(meta) => {
                is_dir = meta.is_dir();
                done.push(part);
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                missing_from = Some(done.len());
                is_dir = false;
                done.push(part);
            }
            Err(e) => return Err(ResolveError::Io(e)),
        }
    }
    let mut rel = PathBuf::new();
    rel.extend(&done);
    let exists = missing_from.is_none();
    Ok(Resolved {
        rel,
        exists,
        is_dir: exists && is_dir,
    })
}

/// Puts `path`'s components (minus `.` and the root marker) in front of `pending`.
fn push_front_components(
    pending: &mut VecDeque<OsString>,
    path: &Path,
) -> Result<(), ResolveError> {
    let mut parts = Vec::new();
    for c in path.components() {
        match c {
            Component::Normal(n) => parts.push(n.to_os_string()),
            Component::ParentDir => parts.push(OsString::from("..")),
            Component::CurDir | Component::RootDir => {}
            Component::Prefix(_) => return Err(ResolveError::ClimbsOut),
        }
    }
    for p in parts.into_iter().rev() {
        pending.push_front(p);
    }
    Ok(())
}

/// `target` relative to the root when it starts with the real root or one of its aliases.
pub fn strip_root(target: &Path, real_root: &Path, aliases: &[&Path]) -> Option<PathBuf> {
    std::iter::once(real_root)
        .chain(aliases.iter().copied())
        .find_map(|root| target.strip_prefix(root).ok().map(Path::to_path_buf))
}

impl Resolved {
    /// Refuses a place the agent may not change (inside `.git` or `.paddock`).
    pub fn check_writable(&self) -> Result<(), PathError> {
        match self
            .rel
            .components()
            .filter_map(|c| c.as_os_str().to_str())
            .find(|c| READ_ONLY_DIRS.contains(c))
        {
            Some(area) => Err(PathError::ReadOnly {
                path: self.display(),
                area: area.to_owned(),
            }),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn setup() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        std::fs::create_dir(&root).unwrap();
        let real = root.canonicalize().unwrap();
        (dir, real)
    }

    #[test]
    fn plain_and_missing_paths() {
        let (_d, root) = setup();
        std::fs::create_dir(root.join("a")).unwrap();
        let r = resolve_beneath(&root, &[], Path::new("a/b/c.txt")).unwrap();
        assert_eq!(r.rel, PathBuf::from("a/b/c.txt"));
        assert!(!r.exists);
        let r = resolve_beneath(&root, &[], Path::new("a")).unwrap();
        assert!(r.exists && r.is_dir);
        let r = resolve_beneath(&root, &[], Path::new("a/x/../y")).unwrap();
        assert_eq!(r.rel, PathBuf::from("a/y"));
        assert!(matches!(
            resolve_beneath(&root, &[], Path::new("a/../../x")),
            Err(ResolveError::ClimbsOut)
        ));
    }

    #[test]
    fn links_inside_are_followed_and_links_out_refused() {
        let (_d, root) = setup();
        std::fs::create_dir(root.join("real")).unwrap();
        symlink("real", root.join("in")).unwrap();
        symlink(root.join("real"), root.join("abs_in")).unwrap();
        symlink("../..", root.join("up")).unwrap();
        symlink("/etc", root.join("etc")).unwrap();
        let r = resolve_beneath(&root, &[], Path::new("in/f")).unwrap();
        assert_eq!(r.rel, PathBuf::from("real/f"));
        let r = resolve_beneath(&root, &[], Path::new("abs_in/f")).unwrap();
        assert_eq!(r.rel, PathBuf::from("real/f"));
        for bad in ["up/x", "etc/passwd", "etc"] {
            assert!(
                matches!(
                    resolve_beneath(&root, &[], Path::new(bad)),
                    Err(ResolveError::LinkOutside(_))
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn loops_are_refused() {
        let (_d, root) = setup();
        symlink("b", root.join("a")).unwrap();
        symlink("a", root.join("b")).unwrap();
        symlink("self", root.join("self")).unwrap();
        assert!(matches!(
            resolve_beneath(&root, &[], Path::new("a")),
            Err(ResolveError::Loop)
        ));
        assert!(matches!(
            resolve_beneath(&root, &[], Path::new("self/x")),
            Err(ResolveError::Loop)
        ));
    }

    #[test]
    fn display_uses_slashes_and_dot() {
        assert_eq!(display_rel(Path::new("")), ".");
        assert_eq!(display_rel(Path::new("a/b")), "a/b");
    }
}
