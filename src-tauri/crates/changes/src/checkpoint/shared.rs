//! Objects the checkpoints share with the workspace's git repository instead of copying:
//! a file whose content is a blob of HEAD's commit is recorded as "content sha256 X is git
//! blob Y of N bytes" (`git/map`, one line each) and read back from the repository when it
//! is needed, checked against X. Everything else is copied into the store as before.
//!
//! What keeps git from collecting a shared blob away: only blobs of HEAD's *commit* are
//! shared (a blob only the index holds is dangling the moment the index moves on, and
//! `git gc --prune=now` deletes it: those are copied). A committed blob stays reachable from
//! the branch's history, and after a history rewrite (reset, rebase, amend) from the reflog
//! (30 to 90 days by default). Each snapshot compares HEAD with the one it saw last
//! (`git/head`): when the old commit is not an ancestor of the new one, every shared blob
//! the new HEAD does not hold is copied into the store at once, while the reflog still
//! keeps it. Nothing is written into the repository. Left: a history rewritten *and* its
//! reflog expired with `--expire=now` and pruned before Paddock looks again; a restore
//! then refuses, before changing anything, naming how many objects are missing.

use std::collections::{HashMap, HashSet};
use std::fs::OpenOptions;
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gix_hash::ObjectId as GitId;

use super::git::{self, Repo};
use super::object_id::ObjectId;
use super::private::{make_private_dir, write_private};

const MAP_FILE: &str = "map";
const HEAD_FILE: &str = "head";
const MAP_HEADER: &str = "paddock-git-map 1";
/// A larger map is not read (a million shared files take about 120 MB).
const MAX_MAP_BYTES: u64 = 512 * 1024 * 1024;

/// Where a shared object's bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct GitRef {
    pub id: GitId,
    pub size: u64,
}

/// The map and the repository it points into.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    dir: PathBuf,
    map: HashMap<ObjectId, GitRef>,
    /// The repository the map's entries are in (from the map's first line).
    git_dir: Option<PathBuf>,
    repo: Option<Arc<Repo>>,
    /// HEAD's commit and its blobs, as last loaded.
    head: Option<(GitId, Arc<HashSet<GitId>>)>,
    /// Map lines not yet appended to the file.
    pending: String,
    /// Why sharing is off for this process (said once in the log).
    off: Option<String>,
    /// Nothing new is shared (what the map holds is still read).
    disabled: bool,
}

/// Copies an object into the store (what a history rewrite put at risk).
pub(crate) type Secure<'a> = dyn FnMut(ObjectId, &[u8]) -> Result<(), String> + 'a;

/// What a scan shares with: HEAD's blobs.
pub(crate) struct ShareWith {
    pub blobs: Arc<HashSet<GitId>>,
}

impl Shared {
    /// The map kept in `dir` (`<store>/git`); an unreadable one is empty (its objects then
    /// read as missing, and a restore needing them refuses).
    pub fn load(dir: PathBuf) -> Self {
        let mut shared = Self {
            dir,
            ..Self::default()
        };
        match shared.read_map() {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => tracing::warn!(error = %e, "the checkpoints' git map was not read"),
        }
        shared
    }

    fn read_map(&mut self) -> io::Result<()> {
        let path = self.dir.join(MAP_FILE);
        if std::fs::metadata(&path)?.len() > MAX_MAP_BYTES {
            return Err(io::Error::other("too large"));
        }
        let text = std::fs::read_to_string(&path)?;
        let mut lines = text.lines();
        let header = lines.next().unwrap_or_default();
        let Some(dir) = header
            .strip_prefix(MAP_HEADER)
            .and_then(|rest| rest.strip_prefix(' '))
        else {
            return Err(io::Error::other("not a map this version wrote"));
        };
        self.git_dir = Some(PathBuf::from(dir));
        // A torn last line (a crash mid-append) is left out.
        for line in lines {
            let mut parts = line.split(' ');
            let (Some(sha), Some(git), Some(size), None) =
                (parts.next(), parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            let (Some(sha), Ok(id), Ok(size)) =
                (ObjectId::parse(sha), git::parse_id(git), size.parse())
            else {
                continue;
            };
            self.map.insert(sha, GitRef { id, size });
        }
        Ok(())
    }

    pub fn turn_off(&mut self) {
        self.disabled = true;
    }

    pub fn get(&self, id: ObjectId) -> Option<GitRef> {
        self.map.get(&id).copied()
    }

    pub fn contains(&self, id: ObjectId) -> bool {
        self.map.contains_key(&id)
    }

    /// The repository the map's objects are in, opened once.
    pub fn repo(&mut self) -> Option<Arc<Repo>> {
        if self.repo.is_none() {
            let dir = self.git_dir.clone()?;
            match Repo::open(&dir) {
                Ok(repo) => self.repo = Some(Arc::new(repo)),
                Err(e) => {
                    tracing::warn!(git = %dir.display(), error = %e, "git objects not readable");
                    return None;
                }
            }
        }
        self.repo.clone()
    }

    /// Gets ready to share with the repository holding the workspace `root` (real path):
    /// HEAD's blobs (loaded again only when HEAD moved), after securing what a history
    /// rewrite put at risk. `None`: nothing is shared this time (no repository, one this
    /// module cannot read, or another repository than the map's).
    pub fn prepare(&mut self, root: &Path, secure: &mut Secure<'_>) -> Option<ShareWith> {
        if self.disabled {
            return None;
        }
        let git_dir = git::discover(root)?;
        if self.git_dir.as_deref() != Some(git_dir.as_path()) {
            if !self.map.is_empty() {
                self.say_off(format!(
                    "the map is of {}, the workspace is now in {}",
                    self.git_dir
                        .as_deref()
                        .map(Path::display)
                        .map(|d| d.to_string())
                        .unwrap_or_default(),
                    git_dir.display()
                ));
                return None;
            }
            self.git_dir = Some(git_dir.clone());
            self.repo = None;
            self.head = None;
            if let Err(e) = self.rewrite() {
                self.say_off(format!("the map cannot be written: {e}"));
                return None;
            }
        }
        let repo = self.repo()?;
        let head = match repo.head() {
            Ok(Some(head)) => head,
            Ok(None) => return None,
            Err(e) => {
                self.say_off(e);
                return None;
            }
        };
        if let Some((id, blobs)) = &self.head
            && *id == head
        {
            return Some(ShareWith {
                blobs: blobs.clone(),
            });
        }
        let blobs = match repo.blobs_of(head) {
            Ok(blobs) => Arc::new(blobs),
            Err(e) => {
                self.say_off(e);
                return None;
            }
        };
        let last = self.last_head();
        if let Some(last) = last.filter(|last| *last != head)
            && !repo.is_ancestor(last, head)
        {
            self.secure(&repo, &blobs, secure);
        }
        if last != Some(head) {
            let path = self.dir.join(HEAD_FILE);
            if let Err(e) = write_private(&path, head.to_string().as_bytes(), false) {
                tracing::warn!(error = %e, "the checkpoints' git HEAD was not noted");
            }
        }
        self.head = Some((head, blobs.clone()));
        Some(ShareWith { blobs })
    }

    fn last_head(&self) -> Option<GitId> {
        let text = std::fs::read_to_string(self.dir.join(HEAD_FILE)).ok()?;
        git::parse_id(text.trim()).ok()
    }

    /// HEAD left the history the shared blobs came from: copies every one the new HEAD
    /// does not hold into the store (through `secure`) and forgets it here.
    fn secure(&mut self, repo: &Repo, keep: &HashSet<GitId>, secure: &mut Secure<'_>) {
        let at_risk: Vec<(ObjectId, GitRef)> = self
            .map
            .iter()
            .filter(|(_, r)| !keep.contains(&r.id))
            .map(|(k, r)| (*k, *r))
            .collect();
        let mut copied = 0;
        for (sha, r) in at_risk {
            let done = repo
                .read_blob(r.id, r.size)
                .and_then(|bytes| {
                    if ObjectId::of(&bytes) == sha {
                        Ok(bytes)
                    } else {
                        Err(format!("object {} is not the content recorded", r.id))
                    }
                })
                .and_then(|bytes| secure(sha, &bytes));
            match done {
                Ok(()) => {
                    self.map.remove(&sha);
                    copied += 1;
                }
                // Kept in the map: a restore that needs it says it is missing.
                Err(e) => tracing::warn!(object = %r.id, error = %e, "shared object not copied"),
            }
        }
        if copied > 0 {
            tracing::info!(
                copied,
                "HEAD moved off the checkpoints' history; objects copied"
            );
            if let Err(e) = self.rewrite() {
                tracing::warn!(error = %e, "the checkpoints' git map was not rewritten");
            }
        }
    }

    /// Records that `sha` is the blob `r` (appended at the next [`Self::flush`]).
    pub fn add(&mut self, sha: ObjectId, r: GitRef) {
        if self.map.insert(sha, r).is_none() {
            self.pending
                .push_str(&format!("{} {} {}\n", sha.to_hex(), r.id, r.size));
        }
    }

    /// Appends what [`Self::add`] recorded: called before a tree that may name it is
    /// written, so no tree in the store names a shared object the map does not.
    pub fn flush(&mut self) -> io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        make_private_dir(&self.dir)?;
        let path = self.dir.join(MAP_FILE);
        if std::fs::symlink_metadata(&path).is_err() {
            self.rewrite()?;
            return Ok(());
        }
        let mut file = OpenOptions::new().append(true).mode(0o600).open(&path)?;
        file.write_all(self.pending.as_bytes())?;
        self.pending.clear();
        Ok(())
    }

    /// Keeps only the entries in `reached`.
    pub fn retain(&mut self, reached: &HashSet<ObjectId>) -> io::Result<()> {
        let before = self.map.len();
        self.map.retain(|k, _| reached.contains(k));
        if self.map.len() != before {
            self.rewrite()?;
        }
        Ok(())
    }

    /// Writes the whole map anew (temporary file and rename).
    fn rewrite(&mut self) -> io::Result<()> {
        let Some(dir) = &self.git_dir else {
            return Ok(());
        };
        make_private_dir(&self.dir)?;
        let mut text = format!("{MAP_HEADER} {}\n", dir.display());
        for (sha, r) in &self.map {
            text.push_str(&format!("{} {} {}\n", sha.to_hex(), r.id, r.size));
        }
        write_private(&self.dir.join(MAP_FILE), text.as_bytes(), false)?;
        self.pending.clear();
        Ok(())
    }

    /// Bytes of the map files.
    pub fn disk_usage(&self) -> u64 {
        [MAP_FILE, HEAD_FILE]
            .iter()
            .filter_map(|f| std::fs::metadata(self.dir.join(f)).ok())
            .map(|m| m.len())
            .sum()
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    fn say_off(&mut self, why: String) {
        if self.off.as_deref() != Some(why.as_str()) {
            tracing::info!(reason = %why, "checkpoints share nothing with git this time");
            self.off = Some(why);
        }
    }
}
