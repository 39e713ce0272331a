//! The workspace's git repository, read as a stranger's: only its object database and the
//! refs HEAD names, through gitoxide's object-store crates. Nothing from the repository's
//! config is read or run (no hooks, filters, fsmonitor or `core.*` programs: this module
//! never starts a process), every file is opened as a small regular file or checked to be
//! one first, and every object read is bounded by the size it is expected to have.
//!
//! Supported: a `.git` folder (not a `.git` file pointing elsewhere), SHA-1 object names,
//! no `objects/info/alternates`. Anything else: the checkpoints share nothing with git and
//! store their own copies, as without a repository.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use gix_hash::ObjectId as GitId;
use gix_object::{Exists, Find, FindHeader};
use paddock_guard::{UntrustedFileError, read_untrusted};

/// Largest HEAD or loose ref file read.
const MAX_REF_BYTES: u64 = 4096;
/// Largest packed-refs file read.
const MAX_PACKED_REFS_BYTES: u64 = 64 * 1024 * 1024;
/// Largest commit or tree object read.
const MAX_META_OBJECT_BYTES: u64 = 64 * 1024 * 1024;
/// Tree entries read from one commit at most (a tree shared by several folders counts once).
const MAX_TREE_ENTRIES: usize = 1_000_000;
/// Commits walked to tell whether one commit is an ancestor of another.
const MAX_ANCESTRY_WALK: usize = 10_000;
/// Folders walked up from the workspace to find its repository.
const MAX_DISCOVERY_DEPTH: usize = 64;

/// An open repository: its `.git` folder and object database.
pub(crate) struct Repo {
    git_dir: PathBuf,
    /// gitoxide's handle keeps per-thread caches: one reader at a time.
    odb: std::sync::Mutex<gix_odb::HandleArc>,
}

impl std::fmt::Debug for Repo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repo")
            .field("git_dir", &self.git_dir)
            .finish()
    }
}

/// The `.git` folder of the repository holding `root` (a real path), if there is one this
/// module supports.
pub(crate) fn discover(root: &Path) -> Option<PathBuf> {
    for dir in root.ancestors().take(MAX_DISCOVERY_DEPTH) {
        let git = dir.join(".git");
        match std::fs::symlink_metadata(&git) {
            Ok(meta) if meta.is_dir() => return Some(git),
            // A worktree's or submodule's `.git` file, or a link: not followed.
            Ok(_) => return None,
            Err(_) => {}
        }
    }
    None
}

/// Alternate object folders followed at most.
const MAX_ALTERNATES: usize = 4;

/// gitoxide opens pack files with a plain open: a FIFO would block it.
fn check_packs(objects: &Path) -> Result<(), String> {
    match std::fs::read_dir(objects.join("pack")) {
        Ok(entries) => {
            for entry in entries.flatten() {
                if !entry.file_type().is_ok_and(|t| t.is_file()) {
                    return Err(format!("{} is not a regular file", entry.path().display()));
                }
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("{}/pack: {e}", objects.display())),
    }
}

impl Repo {
    /// Opens the object database of `git_dir`; `Err` says why it is not used.
    pub fn open(git_dir: &Path) -> Result<Self, String> {
        let objects = git_dir.join("objects");
        let meta = std::fs::symlink_metadata(&objects).map_err(|e| format!("objects: {e}"))?;
        if !meta.is_dir() {
            return Err("objects is not a folder".into());
        }
        check_packs(&objects)?;
        // A clone that borrows objects (a session's worktree): each folder it names is
        // checked as its own (contents are still verified by their SHA-256 on use).
        if let Some(text) = read_small(&objects.join("info/alternates"), MAX_REF_BYTES)? {
            let named: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
            if named.len() > MAX_ALTERNATES {
                return Err("the repository borrows objects from too many places".into());
            }
            for other in named {
                let other = objects.join(other.trim());
                let meta = std::fs::symlink_metadata(&other)
                    .map_err(|e| format!("alternate {}: {e}", other.display()))?;
                if !meta.is_dir() {
                    return Err(format!("alternate {} is not a folder", other.display()));
                }
                if std::fs::symlink_metadata(other.join("info/alternates")).is_ok() {
                    return Err("an alternate borrows objects in turn".into());
                }
                check_packs(&other)?;
            }
        }
        let options = gix_odb::store::init::Options {
            alloc_limit_bytes: Some(usize::try_from(MAX_META_OBJECT_BYTES).unwrap_or(usize::MAX)),
            current_dir: Some(git_dir.to_path_buf()),
            ..Default::default()
        };
        let odb = gix_odb::at_opts(objects, gix_hash::Kind::Sha1, None, options)
            .and_then(|h| h.into_arc())
            .map_err(|e| format!("object database: {e}"))?;
        Ok(Self {
            git_dir: git_dir.to_path_buf(),
            odb: std::sync::Mutex::new(odb),
        })
    }

    pub fn git_dir(&self) -> &Path {
        &self.git_dir
    }

    /// The commit HEAD names, `None` on an unborn branch; `Err` when it cannot be read.
    pub fn head(&self) -> Result<Option<GitId>, String> {
        let head = read_small(&self.git_dir.join("HEAD"), MAX_REF_BYTES)?
            .ok_or_else(|| "HEAD is missing".to_owned())?;
        let head = head.trim();
        let Some(name) = head.strip_prefix("ref:") else {
            return parse_id(head).map(Some);
        };
        let name = name.trim();
        if !plain_ref_name(name) {
            return Err(format!("HEAD names {name:?}, not a branch"));
        }
        if let Some(text) = read_small(&self.git_dir.join(name), MAX_REF_BYTES)? {
            return parse_id(text.trim()).map(Some);
        }
        let Some(packed) = read_small(&self.git_dir.join("packed-refs"), MAX_PACKED_REFS_BYTES)?
        else {
            return Ok(None);
        };
        for line in packed.lines() {
            if let Some((id, ref_name)) = line.split_once(' ')
                && ref_name == name
            {
                return parse_id(id).map(Some);
            }
        }
        Ok(None)
    }

    /// Every file content (blob) the commit's tree holds, links and submodules left out.
    pub fn blobs_of(&self, commit: GitId) -> Result<HashSet<GitId>, String> {
        let mut buf = Vec::new();
        let tree = {
            let data = self.meta_object(commit, gix_object::Kind::Commit, &mut buf)?;
            gix_object::CommitRefIter::from_bytes(data, gix_hash::Kind::Sha1)
                .tree_id()
                .map_err(|e| format!("commit {commit}: {e}"))?
        };
        let mut blobs = HashSet::new();
        let mut seen = HashSet::new();
        let mut stack = vec![tree];
        let mut entries = 0usize;
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            let data = self.meta_object(id, gix_object::Kind::Tree, &mut buf)?;
            for entry in gix_object::TreeRefIter::from_bytes(data, gix_hash::Kind::Sha1) {
                let entry = entry.map_err(|e| format!("tree {id}: {e}"))?;
                entries += 1;
                if entries > MAX_TREE_ENTRIES {
                    return Err(format!("more than {MAX_TREE_ENTRIES} entries in HEAD"));
                }
                if entry.mode.is_tree() {
                    stack.push(entry.oid.to_owned());
                } else if entry.mode.is_blob() {
                    blobs.insert(entry.oid.to_owned());
                }
            }
        }
        Ok(blobs)
    }

    /// Whether `old` is `new` or one of its ancestors (within [`MAX_ANCESTRY_WALK`]
    /// commits; past that, `false`).
    pub fn is_ancestor(&self, old: GitId, new: GitId) -> bool {
        let mut buf = Vec::new();
        let mut seen = HashSet::new();
        let mut queue = std::collections::VecDeque::from([new]);
        while let Some(id) = queue.pop_front() {
            if id == old {
                return true;
            }
            if !seen.insert(id) || seen.len() > MAX_ANCESTRY_WALK {
                continue;
            }
            let Ok(data) = self.meta_object(id, gix_object::Kind::Commit, &mut buf) else {
                continue;
            };
            let Ok(commit) = gix_object::CommitRef::from_bytes(data, gix_hash::Kind::Sha1) else {
                continue;
            };
            queue.extend(commit.parents());
        }
        false
    }

    /// Whether the repository has the blob, checked without reading it.
    pub fn has(&self, id: GitId) -> bool {
        self.loose_is_regular(id) && self.odb().exists(&id)
    }

    /// The blob `id`, which must be `size` bytes long.
    pub fn read_blob(&self, id: GitId, size: u64) -> Result<Vec<u8>, String> {
        if !self.loose_is_regular(id) {
            return Err(format!("the loose object {id} is not a regular file"));
        }
        let odb = self.odb();
        let header = odb
            .try_header(&id)
            .map_err(|e| format!("object {id}: {e}"))?
            .ok_or_else(|| format!("object {id} is not in the repository"))?;
        if header.kind != gix_object::Kind::Blob || header.size != size {
            return Err(format!(
                "object {id} is a {} of {} bytes, not a blob of {size}",
                header.kind, header.size
            ));
        }
        let mut buf = Vec::new();
        let data = odb
            .try_find(&id, &mut buf)
            .map_err(|e| format!("object {id}: {e}"))?
            .ok_or_else(|| format!("object {id} is not in the repository"))?;
        if data.kind != gix_object::Kind::Blob || data.data.len() as u64 != size {
            return Err(format!("object {id} changed while it was read"));
        }
        Ok(data.data.to_vec())
    }

    /// A commit or tree, bounded by [`MAX_META_OBJECT_BYTES`].
    fn meta_object<'b>(
        &self,
        id: GitId,
        kind: gix_object::Kind,
        buf: &'b mut Vec<u8>,
    ) -> Result<&'b [u8], String> {
        if !self.loose_is_regular(id) {
            return Err(format!("the loose object {id} is not a regular file"));
        }
        let odb = self.odb();
        let header = odb
            .try_header(&id)
            .map_err(|e| format!("object {id}: {e}"))?
            .ok_or_else(|| format!("object {id} is not in the repository"))?;
        if header.kind != kind || header.size > MAX_META_OBJECT_BYTES {
            return Err(format!("object {id} is not a {kind} that can be read"));
        }
        let data = odb
            .try_find(&id, buf)
            .map_err(|e| format!("object {id}: {e}"))?
            .ok_or_else(|| format!("object {id} is not in the repository"))?;
        if data.kind != kind {
            return Err(format!("object {id} is not a {kind}"));
        }
        Ok(data.data)
    }

    fn odb(&self) -> std::sync::MutexGuard<'_, gix_odb::HandleArc> {
        self.odb
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A loose object's file, when there is one, is a regular file (gitoxide opens it with a
    /// plain open, which a FIFO would block).
    fn loose_is_regular(&self, id: GitId) -> bool {
        let hex = id.to_hex().to_string();
        let path = self.git_dir.join("objects").join(&hex[..2]).join(&hex[2..]);
        match std::fs::symlink_metadata(path) {
            Ok(meta) => meta.is_file(),
            Err(_) => true,
        }
    }
}

/// The git name of a file's content (`blob <len>\0` + content, SHA-1 with collision
/// detection).
pub(crate) fn blob_id(content: &[u8]) -> Option<GitId> {
    gix_object::compute_hash(gix_hash::Kind::Sha1, gix_object::Kind::Blob, content).ok()
}

/// A 40-hex-digit object name.
pub(crate) fn parse_id(text: &str) -> Result<GitId, String> {
    if text.len() != 40 {
        return Err(format!("{text:?} is not a SHA-1 object name"));
    }
    GitId::from_hex(text.as_bytes()).map_err(|e| format!("{text:?}: {e}"))
}

/// A small regular file's text, `None` when it is missing.
fn read_small(path: &Path, max: u64) -> Result<Option<String>, String> {
    match read_untrusted(path, max) {
        Ok(text) => Ok(Some(text)),
        Err(UntrustedFileError::Missing { .. }) => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

/// `refs/...` made of plain parts only, so it cannot lead out of the `.git` folder.
fn plain_ref_name(name: &str) -> bool {
    name.starts_with("refs/")
        && name.len() < 1024
        && name.split('/').all(|part| {
            !part.is_empty()
                && !part.starts_with('.')
                && !part.ends_with(".lock")
                && part
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"._-+@".contains(&b))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ref_names_that_could_climb_out_are_refused() {
        assert!(plain_ref_name("refs/heads/main"));
        assert!(plain_ref_name("refs/heads/feature/x-1.2"));
        for bad in [
            "refs/../config",
            "refs/heads/../../x",
            "HEAD",
            "/etc/passwd",
            "refs//x",
            "refs/heads/a.lock",
        ] {
            assert!(!plain_ref_name(bad), "{bad}");
        }
    }

    #[test]
    fn blob_ids_match_git() {
        // `printf 'hello\n' | git hash-object --stdin`
        assert_eq!(
            blob_id(b"hello\n").unwrap().to_string(),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
    }
}
