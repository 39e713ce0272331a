//! Hard links out of the workspace. A file in the workspace that is also linked from outside
//! is the same file: writing it (or chmod) changes the outside one, whatever the mounts say.
//! The sandbox cannot make new links across its mounts, so the links that matter are the ones
//! there before: found once per workspace and process, and bound read-only by bubblewrap.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// Entries looked at at most in one workspace.
const MAX_ENTRIES: usize = 200_000;
/// A workspace this small is scanned again for every command (cheap, and always exact);
/// larger ones once per process.
const RESCAN_BELOW: usize = 5_000;
/// Files pinned at most (each is a mount).
pub const MAX_PINNED: usize = 2_000;

/// Files of a workspace linked from outside it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OutsideLinks {
    pub files: Vec<PathBuf>,
    /// Entries looked at.
    entries: usize,
    /// More than [`MAX_PINNED`] such files, or more than [`MAX_ENTRIES`] entries to look at:
    /// not all are known or pinned.
    pub incomplete: bool,
}

/// The files under `root` with a hard link outside it: looked up again for a small
/// workspace, cached for the process for a large one.
pub fn outside_links(root: &Path) -> Arc<OutsideLinks> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Arc<OutsideLinks>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Mutex::default);
    if let Some(found) = cache
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(root)
    {
        return found.clone();
    }
    let found = Arc::new(scan(root));
    if found.entries >= RESCAN_BELOW {
        cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(root.to_path_buf(), found.clone());
    }
    found
}

/// The files a command may write through to outside: under `workdir` when it writes there
/// (bash), else under the places it writes (Paddock's own git reads a large checkout and
/// writes only its `.git`: the checkout's links cannot be written through).
pub fn outside_links_for(workdir: &Path, writable: &[PathBuf]) -> Arc<OutsideLinks> {
    if writable.iter().any(|w| workdir.starts_with(w)) {
        return outside_links(workdir);
    }
    let mut all = OutsideLinks::default();
    for root in writable.iter().filter(|w| w.is_dir()) {
        let found = outside_links(root);
        all.files.extend(found.files.iter().cloned());
        all.entries += found.entries;
        all.incomplete |= found.incomplete;
    }
    Arc::new(all)
}

fn scan(root: &Path) -> OutsideLinks {
    // (device, inode) -> (links in the file system, paths seen under the root)
    let mut seen: HashMap<(u64, u64), (u64, Vec<PathBuf>)> = HashMap::new();
    let mut pending = vec![root.to_path_buf()];
    let mut entries = 0;
    let mut incomplete = false;
    while let Some(dir) = pending.pop() {
        let Ok(read) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in read.flatten() {
            entries += 1;
            if entries > MAX_ENTRIES {
                incomplete = true;
                pending.clear();
                break;
            }
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() {
                pending.push(entry.path());
            } else if meta.is_file() && meta.nlink() > 1 {
                let slot = seen
                    .entry((meta.dev(), meta.ino()))
                    .or_insert_with(|| (meta.nlink(), Vec::new()));
                slot.1.push(entry.path());
            }
        }
    }
    let mut files: Vec<PathBuf> = seen
        .into_values()
        .filter(|(links, paths)| (paths.len() as u64) < *links)
        .flat_map(|(_, paths)| paths)
        .collect();
    files.sort();
    if files.len() > MAX_PINNED {
        files.truncate(MAX_PINNED);
        incomplete = true;
    }
    OutsideLinks {
        files,
        entries,
        incomplete,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_that_only_reads_its_workdir_pins_the_links_where_it_writes() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        let git = ws.join(".git");
        std::fs::create_dir_all(&git).unwrap();
        std::fs::write(dir.path().join("outside"), "x").unwrap();
        std::fs::hard_link(dir.path().join("outside"), ws.join("in-checkout")).unwrap();
        std::fs::hard_link(dir.path().join("outside"), git.join("index")).unwrap();
        let writes_git = outside_links_for(&ws, std::slice::from_ref(&git));
        assert_eq!(writes_git.files, vec![git.join("index")]);
        let writes_all = outside_links_for(&ws, std::slice::from_ref(&ws));
        assert_eq!(writes_all.files.len(), 2);
        assert!(outside_links_for(&ws, &[]).files.is_empty());
    }

    #[test]
    fn only_links_that_leave_the_root_count() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(ws.join("sub")).unwrap();
        std::fs::write(dir.path().join("outside"), "x").unwrap();
        std::fs::hard_link(dir.path().join("outside"), ws.join("sub/in")).unwrap();
        std::fs::write(ws.join("a"), "y").unwrap();
        std::fs::hard_link(ws.join("a"), ws.join("b")).unwrap();
        let found = scan(&ws);
        assert_eq!(found.files, [ws.join("sub/in")]);
        assert!(!found.incomplete);
    }
}
