//! The workspace browser's data: a capped tree of the workspace root and size-capped text
//! previews, both through the kernel's path guard (the same rules as the file tools).

use std::collections::VecDeque;
use std::io::Read;
use std::path::Path;

use paddock_guard::{PathError, PathGuard, display_rel};
use paddock_protocol::{FilePreview, WorkspaceEntry, WorkspaceMode, WorkspaceTree};
use paddock_tools::SKIPPED_DIRS;

use crate::trust::TrustStore;
use crate::{HostError, Resolved, RunOptions};

/// The guard over the project's workspace (the one its settings in effect choose: a
/// `workspace` that waits for trust does not apply; the default one while the settings file
/// is broken), which must be a real folder inside the project.
pub fn guard_for(trust: &TrustStore, project: &Path) -> PathGuard {
    PathGuard::new(mode_of(trust, project).root(project)).inside(project)
}

/// The workspace mode in effect for `project`.
pub(crate) fn mode_of(trust: &TrustStore, project: &Path) -> WorkspaceMode {
    Resolved::load_lenient(trust, project, &RunOptions::default())
        .settings()
        .workspace
}

/// The workspace folder to watch for changes: the guard's root when it is a real folder
/// inside the project or does not exist yet; refused when it is a link or leads outside.
pub fn watchable_root(trust: &TrustStore, project: &Path) -> Result<std::path::PathBuf, HostError> {
    let guard = guard_for(trust, project);
    match guard.open_root() {
        Ok(_) | Err(PathError::RootMissing { .. }) => Ok(guard.root().to_path_buf()),
        Err(e) => Err(e.into()),
    }
}

/// Entries listed at most; the shallowest come first.
pub const MAX_TREE_ENTRIES: usize = 5_000;
/// Bytes of a file shown in the preview.
pub const MAX_PREVIEW_BYTES: u64 = 256 * 1024;
/// Bytes looked at for a NUL when deciding whether a file is binary.
const BINARY_SNIFF: usize = 8_000;

/// The tree under `root` (breadth first, then sorted by path); folders in [`SKIPPED_DIRS`]
/// are listed but not entered, and symlinks are never followed.
pub fn tree(guard: &PathGuard) -> Result<WorkspaceTree, HostError> {
    let opened = match guard.open_root() {
        Ok(r) => r,
        Err(PathError::RootMissing { root }) => {
            return Ok(WorkspaceTree {
                root,
                exists: false,
                entries: Vec::new(),
                truncated: false,
            });
        }
        Err(e) => return Err(e.into()),
    };
    let real = opened.real_path();
    let mut entries = Vec::new();
    let mut truncated = false;
    let mut queue = VecDeque::from([real.to_path_buf()]);
    'walk: while let Some(dir) = queue.pop_front() {
        let Ok(children) = std::fs::read_dir(&dir) else {
            continue;
        };
        for child in children.flatten() {
            if entries.len() >= MAX_TREE_ENTRIES {
                truncated = true;
                break 'walk;
            }
            let path = child.path();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            let Ok(rel) = path.strip_prefix(real) else {
                continue;
            };
            let is_dir = meta.is_dir();
            let skipped = child
                .file_name()
                .to_str()
                .is_some_and(|n| SKIPPED_DIRS.contains(&n));
            if is_dir && !skipped {
                queue.push_back(path.clone());
            }
            entries.push(WorkspaceEntry {
                path: display_rel(rel),
                is_dir,
                size: if is_dir { 0 } else { meta.len() },
            });
        }
    }
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(WorkspaceTree {
        root: opened.configured_path().to_string_lossy().into_owned(),
        exists: true,
        entries,
        truncated,
    })
}

/// The start of a workspace file as text, or `binary` when it is not text.
pub fn preview(guard: &PathGuard, path: &str) -> Result<FilePreview, HostError> {
    let opened = guard.open_root().map_err(HostError::from)?;
    let (resolved, file) = opened.open_read(path).map_err(HostError::from)?;
    let io = |e: std::io::Error| PathError::Io {
        path: path.to_owned(),
        source: e,
    };
    let size = file.metadata().map_err(|e| HostError::from(io(e)))?.len();
    let mut bytes = Vec::new();
    file.take(MAX_PREVIEW_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| HostError::from(io(e)))?;
    let truncated = size > bytes.len() as u64;
    let text = as_text(&bytes, truncated);
    Ok(FilePreview {
        path: resolved.display(),
        size,
        binary: text.is_none(),
        truncated,
        text,
    })
}

/// Text when the bytes are UTF-8 without NULs; a character cut in half at the end of a
/// truncated read is dropped, not taken as a sign of binary.
fn as_text(bytes: &[u8], truncated: bool) -> Option<String> {
    if bytes[..bytes.len().min(BINARY_SNIFF)].contains(&0) {
        return None;
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => Some(s.to_owned()),
        Err(e) if truncated && e.error_len().is_none() => {
            Some(String::from_utf8_lossy(&bytes[..e.valid_up_to()]).into_owned())
        }
        Err(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(e: &HostError) -> bool {
        matches!(e, HostError::Path(p) if p.is_refusal())
    }

    fn paths(t: &WorkspaceTree) -> Vec<&str> {
        t.entries.iter().map(|e| e.path.as_str()).collect()
    }

    #[test]
    fn a_missing_root_is_an_empty_tree() {
        let dir = tempfile::tempdir().unwrap();
        let t = tree(&PathGuard::new(dir.path().join(".agent-workspace"))).unwrap();
        assert!(!t.exists);
        assert!(t.entries.is_empty());
    }

    #[test]
    fn the_tree_lists_files_and_skips_into_nothing_outside() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::create_dir_all(root.join("node_modules/pkg")).unwrap();
        std::fs::write(root.join("src/deep/a.rs"), "fn a() {}").unwrap();
        std::fs::write(root.join("node_modules/pkg/index.js"), "x").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "outside").unwrap();
        std::os::unix::fs::symlink(dir.path(), root.join("up")).unwrap();
        let t = tree(&PathGuard::new(&root)).unwrap();
        assert!(t.exists);
        assert_eq!(
            paths(&t),
            ["node_modules", "src", "src/deep", "src/deep/a.rs", "up"]
        );
        let a = t
            .entries
            .iter()
            .find(|e| e.path == "src/deep/a.rs")
            .unwrap();
        assert_eq!((a.is_dir, a.size), (false, 9));
        let up = t.entries.iter().find(|e| e.path == "up").unwrap();
        assert!(!up.is_dir, "a symlink is listed, not followed");
    }

    #[test]
    fn the_tree_is_capped() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..(MAX_TREE_ENTRIES + 10) {
            std::fs::write(dir.path().join(format!("f{i}")), "").unwrap();
        }
        let t = tree(&PathGuard::new(dir.path())).unwrap();
        assert!(t.truncated);
        assert_eq!(t.entries.len(), MAX_TREE_ENTRIES);
    }

    #[test]
    fn previews_stay_inside_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(dir.path().join("secret.txt"), "outside").unwrap();
        std::os::unix::fs::symlink(dir.path().join("secret.txt"), root.join("link")).unwrap();
        for path in ["../secret.txt", "link", "/etc/passwd"] {
            let e = preview(&PathGuard::new(&root), path).unwrap_err();
            assert!(refused(&e), "{path}: {e:?}");
        }
        assert!(matches!(
            preview(&PathGuard::new(&root), "nope.txt").unwrap_err(),
            HostError::Path(PathError::NotFound { .. })
        ));
    }

    #[test]
    fn previews_are_capped_and_detect_binary() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "héllo\n").unwrap();
        let p = preview(&PathGuard::new(dir.path()), "a.txt").unwrap();
        assert_eq!(p.text.as_deref(), Some("héllo\n"));
        assert!(!p.binary && !p.truncated);

        std::fs::write(dir.path().join("b.bin"), [0x7f, b'E', b'L', b'F', 0, 1, 2]).unwrap();
        let p = preview(&PathGuard::new(dir.path()), "b.bin").unwrap();
        assert!(p.binary && p.text.is_none());

        // 'é' is two bytes; put one across the cap so the cut lands inside it.
        let mut big = "a".repeat(MAX_PREVIEW_BYTES as usize - 1);
        big.push_str("é and more");
        std::fs::write(dir.path().join("big.txt"), &big).unwrap();
        let p = preview(&PathGuard::new(dir.path()), "big.txt").unwrap();
        assert!(p.truncated && !p.binary);
        assert_eq!(p.size, big.len() as u64);
        assert_eq!(p.text.unwrap().len(), MAX_PREVIEW_BYTES as usize - 1);
    }
}
