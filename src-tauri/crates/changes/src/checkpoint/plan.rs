//! What a snapshot remembers of the last one (each folder's tree, entries and totals), and
//! the plan of an incremental snapshot: the folders on the paths the journal names are
//! listed again, everything else is taken from the last snapshot unread.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::cache::Stamp;
use super::journal::Dirty;
use super::objects::ObjectId;
use super::rules::IGNORE_FILES;
use super::tree::Entry;
use super::{MAX_ENTRIES, Skipped};

/// Files with more than one name are stat'ed every time (a write through another name
/// changes them without an event naming them); past this many, walking is as cheap.
pub(crate) const MAX_MULTI_LINKED: usize = 5_000;

/// One folder as the last snapshot recorded it.
#[derive(Debug, Clone)]
pub(crate) struct DirMemo {
    pub tree: ObjectId,
    pub entries: Vec<Entry>,
    /// Beneath it: regular files, their bytes, entries kept, and what was not kept.
    pub files: usize,
    pub bytes: u64,
    pub count: usize,
    pub skipped: Vec<Skipped>,
}

/// The last snapshot of one workspace root.
#[derive(Debug, Default)]
pub(crate) struct LastScan {
    pub root: String,
    pub id: Option<ObjectId>,
    pub dirs: HashMap<String, DirMemo>,
    /// Regular files with more than one link.
    pub multi: BTreeSet<String>,
    /// `.git/info/exclude` (the ignore file outside any watched folder) as it was.
    pub exclude: Option<Stamp>,
}

/// The folders and paths an incremental snapshot looks at again.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    /// Paths whose entry is looked at again.
    pub paths: HashSet<String>,
    /// Folders read whole.
    pub subtrees: HashSet<String>,
    /// Folders listed again (above a path or folder of the two sets), root included.
    pub listed: HashSet<String>,
}

impl Plan {
    /// The plan for what the journal recorded, plus the files with several links.
    pub fn new(dirty: Dirty, multi: &BTreeSet<String>) -> Self {
        let mut plan = Self {
            paths: dirty.paths,
            subtrees: dirty.subtrees,
            listed: HashSet::from([String::new()]),
        };
        plan.paths.extend(multi.iter().cloned());
        // A changed ignore file changes what its folder keeps beneath it: read it whole.
        let ignore_dirs: Vec<String> = plan
            .paths
            .iter()
            .filter_map(|p| {
                let (dir, name) = p.rsplit_once('/').unwrap_or(("", p.as_str()));
                IGNORE_FILES.contains(&name).then(|| dir.to_owned())
            })
            .collect();
        plan.subtrees.extend(ignore_dirs);
        for path in plan.paths.iter().chain(plan.subtrees.iter()) {
            let mut at = path.as_str();
            while let Some((parent, _)) = at.rsplit_once('/') {
                if !plan.listed.insert(parent.to_owned()) {
                    break;
                }
                at = parent;
            }
        }
        plan
    }

    /// Whether the whole workspace is to be read again (the root's ignore file changed).
    pub fn everything(&self) -> bool {
        self.subtrees.contains("")
    }

    /// Whether the entry at `path` is looked at again (not taken from the last snapshot).
    pub fn touches(&self, path: &str) -> bool {
        self.paths.contains(path) || self.subtrees.contains(path) || self.listed.contains(path)
    }
}

impl LastScan {
    /// Whether an incremental snapshot may build on this one.
    pub fn usable(&self, root: &str, exclude: Option<Stamp>) -> bool {
        self.root == root
            && self.id.is_some()
            && self.exclude == exclude
            && self.multi.len() <= MAX_MULTI_LINKED
            && self.dirs.contains_key("")
    }

    /// Forgets the folders at and beneath `rel` (no longer folders there).
    pub fn forget(&mut self, rel: &str) {
        let prefix = format!("{rel}/");
        self.dirs
            .retain(|d, _| d != rel && !(rel.is_empty() || d.starts_with(&prefix)));
        self.multi.retain(|f| !f.starts_with(&prefix));
    }
}

/// Totals of a scan so far, to take a folder's share of them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mark {
    pub files: usize,
    pub bytes: u64,
    pub count: usize,
    pub skipped: usize,
}

/// The count a reused folder adds, checked against the cap.
pub(crate) fn within_cap(entries: usize) -> bool {
    entries <= MAX_ENTRIES
}
