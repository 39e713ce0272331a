//! The composer's `@` list: the workspace's files and folders as the search tools see them
//! (ignore files honoured, dependency folders skipped, links not followed, beneath the path
//! guard's root), matched fuzzily as the user types. The walk is kept and renewed in the
//! background once stale, so a keystroke only matches (a few milliseconds on 27,000 files;
//! `cargo bench -p paddock-host --bench mentions`).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher};
use paddock_guard::{PathError, PathGuard};
use paddock_protocol::MentionCandidate;

use crate::HostError;

/// Files listed at most (a bigger tree is cut, and the list says so).
pub const MAX_INDEXED_FILES: usize = 200_000;
/// Candidates one keystroke returns at most.
pub const MAX_CANDIDATES: usize = 50;
/// A list older than this is walked again (in the background; the old one serves meanwhile).
const FRESH_FOR: Duration = Duration::from_secs(10);

/// One workspace's files and folders at one moment.
pub struct MentionIndex {
    entries: Vec<MentionCandidate>,
    /// More files than [`MAX_INDEXED_FILES`] were there.
    pub truncated: bool,
    built: Instant,
}

impl MentionIndex {
    /// Walks the workspace under `guard` (an empty list when it does not exist yet).
    pub fn build(guard: &PathGuard) -> Result<Self, HostError> {
        let built = Instant::now();
        let root = match guard.open_root() {
            Ok(root) => root,
            Err(PathError::RootMissing { .. }) => {
                return Ok(Self {
                    entries: Vec::new(),
                    truncated: false,
                    built,
                });
            }
            Err(e) => return Err(e.into()),
        };
        let (files, truncated) =
            paddock_tools::workspace_files(root.real_path(), MAX_INDEXED_FILES).map_err(|e| {
                HostError::Io {
                    context: "the workspace's files could not be listed".to_owned(),
                    source: std::io::Error::other(e),
                }
            })?;
        let mut folders = BTreeSet::new();
        for file in &files {
            let mut at = file.as_str();
            while let Some((parent, _)) = at.rsplit_once('/') {
                if !folders.insert(parent.to_owned()) {
                    break;
                }
                at = parent;
            }
        }
        let mut entries: Vec<MentionCandidate> = folders
            .into_iter()
            .map(|path| MentionCandidate { path, folder: true })
            .collect();
        entries.extend(files.into_iter().map(|path| MentionCandidate {
            path,
            folder: false,
        }));
        Ok(Self {
            entries,
            truncated,
            built,
        })
    }

    /// Files and folders in all.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The best `limit` matches of `query` (a fuzzy path match, smart case): better scores
    /// first, then shorter paths. An empty query gives the top level.
    pub fn search(&self, query: &str, limit: usize) -> Vec<MentionCandidate> {
        let limit = limit.min(MAX_CANDIDATES);
        let query = query.trim();
        if query.is_empty() {
            return self
                .entries
                .iter()
                .filter(|e| !e.path.contains('/'))
                .take(limit)
                .cloned()
                .collect();
        }
        let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
        let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
        let mut scored: Vec<(&MentionCandidate, u32)> = pattern
            .match_list(self.entries.iter().map(Shown), &mut matcher)
            .into_iter()
            .map(|(shown, score)| (shown.0, score))
            .collect();
        scored.sort_by(|(a, sa), (b, sb)| {
            sb.cmp(sa)
                .then(a.path.len().cmp(&b.path.len()))
                .then(a.path.cmp(&b.path))
        });
        scored
            .into_iter()
            .take(limit)
            .map(|(e, _)| e.clone())
            .collect()
    }
}

/// A candidate as the matcher reads it: its path.
struct Shown<'a>(&'a MentionCandidate);

impl AsRef<str> for Shown<'_> {
    fn as_ref(&self) -> &str {
        &self.0.path
    }
}

/// The lists of the workspaces the app has open, renewed when stale.
#[derive(Default)]
pub struct MentionIndexes {
    by_root: Mutex<HashMap<PathBuf, Slot>>,
}

#[derive(Default)]
struct Slot {
    index: Option<Arc<MentionIndex>>,
    renewing: bool,
}

impl MentionIndexes {
    /// Matches of `query` in the workspace under `guard`: built now the first time (the
    /// caller is off the async threads), then served from the kept list while a stale one
    /// is walked again in the background.
    pub fn search(
        self: &Arc<Self>,
        guard: &PathGuard,
        query: &str,
        limit: usize,
    ) -> Result<Vec<MentionCandidate>, HostError> {
        let key = guard.root().to_path_buf();
        let kept = self.slot(&key, |slot| slot.index.clone());
        let index = match kept {
            Some(index) => {
                if index.built.elapsed() > FRESH_FOR {
                    self.renew(key, guard.clone());
                }
                index
            }
            None => {
                let index = Arc::new(MentionIndex::build(guard)?);
                self.slot(&key, |slot| slot.index = Some(index.clone()));
                index
            }
        };
        Ok(index.search(query, limit))
    }

    fn slot<T>(&self, key: &Path, f: impl FnOnce(&mut Slot) -> T) -> T {
        let mut map = self.by_root.lock().unwrap_or_else(PoisonError::into_inner);
        f(map.entry(key.to_path_buf()).or_default())
    }

    /// Walks again in the background, once at a time per workspace.
    fn renew(self: &Arc<Self>, key: PathBuf, guard: PathGuard) {
        let start = self.slot(&key, |slot| !std::mem::replace(&mut slot.renewing, true));
        if !start {
            return;
        }
        let indexes = self.clone();
        std::thread::spawn(move || {
            let fresh = MentionIndex::build(&guard).ok().map(Arc::new);
            indexes.slot(&key, |slot| {
                slot.renewing = false;
                if fresh.is_some() {
                    slot.index = fresh;
                }
            });
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_and_their_folders_match_fuzzily_and_ignored_ones_are_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for f in [
            "src/main.rs",
            "src/mentions/index.rs",
            "docs/manual.md",
            "target/debug/main.o",
            "node_modules/x/main.js",
            "README.md",
        ] {
            let path = root.join(f);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x").unwrap();
        }
        std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
        let index = MentionIndex::build(&PathGuard::new(&root)).unwrap();
        let paths =
            |q: &str| -> Vec<String> { index.search(q, 10).into_iter().map(|c| c.path).collect() };
        assert_eq!(paths("mainrs"), ["src/main.rs"]);
        assert_eq!(paths("smi")[0], "src/mentions/index.rs");
        assert!(
            paths("main")
                .iter()
                .all(|p| !p.contains("target") && !p.contains("node_modules"))
        );
        let folder = index.search("mentions", 10);
        assert!(
            folder.iter().any(|c| c.folder && c.path == "src/mentions"),
            "{folder:?}"
        );
        let top = paths("");
        assert!(top.contains(&"README.md".to_owned()) && top.contains(&"src".to_owned()));
        assert!(top.iter().all(|p| !p.contains('/')));
    }

    #[test]
    fn links_out_of_the_workspace_lead_the_list_nowhere() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.rs"), "x").unwrap();
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(outside.join("deep")).unwrap();
        std::fs::write(outside.join("deep/secret.txt"), "SECRET").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("escape")).unwrap();
        std::os::unix::fs::symlink(outside.join("deep/secret.txt"), root.join("src/leak.txt"))
            .unwrap();
        let root = root.canonicalize().unwrap();
        let guard = PathGuard::new(&root);
        let index = MentionIndex::build(&guard).unwrap();
        let all: Vec<String> = index.entries.iter().map(|c| c.path.clone()).collect();
        assert!(all.contains(&"src/a.rs".to_owned()), "{all:?}");
        assert!(
            all.iter()
                .all(|p| !p.starts_with("escape/") && !p.contains("deep")),
            "the walk followed a link out: {all:?}"
        );
        // Whatever the list shows, attaching through a link reads nothing outside.
        for path in all
            .iter()
            .chain(["escape/deep/secret.txt".to_owned()].iter())
        {
            let attached = crate::attach::prompt_message(
                &guard,
                "see",
                &[paddock_protocol::PromptAttachment::Mention { path: path.clone() }],
                crate::attach::Vision {
                    provider: paddock_protocol::ProviderKind::Anthropic,
                    model: "m",
                    takes: None,
                },
            );
            if let Ok(message) = attached {
                assert!(
                    !format!("{message:?}").contains("SECRET"),
                    "{path} read outside the workspace"
                );
            }
        }
    }
}
