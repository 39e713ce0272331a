//! Choosing how a snapshot is taken: incrementally from the journal when it can tell
//! everything that changed since the last snapshot, else by walking the whole workspace
//! (the first snapshot of a process, after an overflow or error, on filesystems the journal
//! does not trust, and every [`StoreOptions::cross_check_every`] snapshots, when the walk's
//! result is compared with the journal's and any difference counted and logged).

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::{Duration, Instant};

use paddock_guard::Root;
use serde::{Deserialize, Serialize};

use super::cache::{Stamp, StatCache};
use super::journal::{Journal, Taken};
use super::plan::{LastScan, Plan};
use super::scan::{Context, Scan, Scanned};
use super::{CheckpointError, CheckpointStore, State, WATCH_DIR};

/// A walk at least this often, whatever the count says.
const CROSS_CHECK_AGE: Duration = Duration::from_secs(15 * 60);
/// The stat cache is saved after an incremental snapshot at most this often (walks always
/// save it; so does dropping the store): it is only a hint for the next process.
const CACHE_SAVE_EVERY: Duration = Duration::from_secs(60);

/// How a store takes snapshots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreOptions {
    /// Use the change journal (inotify) between snapshots.
    pub journal: bool,
    /// Walk and compare every this many incremental snapshots (0: never).
    pub cross_check_every: u32,
    /// Record what git's HEAD holds by its git name instead of copying it.
    pub share_with_git: bool,
}

impl Default for StoreOptions {
    fn default() -> Self {
        Self {
            journal: true,
            cross_check_every: 50,
            share_with_git: true,
        }
    }
}

/// How the snapshots of a store were taken.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JournalStats {
    /// Snapshots taken from the journal.
    pub incremental: u64,
    /// Snapshots that walked everything.
    pub walks: u64,
    /// Walks compared with what the journal gave.
    pub cross_checks: u64,
    /// Comparisons that differed (each logged; the walk's result is the one kept).
    pub disagreements: u64,
    /// Why the last walk walked.
    pub last_walk_reason: Option<String>,
    /// Folders watched now.
    pub watched: usize,
    /// Why the journal is not used, when it is not.
    pub off: Option<String>,
}

/// The journal of one workspace root (or why there is none).
pub(crate) struct JournalSlot {
    root: String,
    pub journal: Option<Journal>,
    pub off: Option<String>,
}

impl CheckpointStore {
    /// Scans the workspace into the store; `true` when it walked everything.
    pub(super) fn scan(
        &self,
        state: &mut State,
        root: &Root,
    ) -> Result<(Scanned, bool), CheckpointError> {
        let key = root.real_path().to_string_lossy().into_owned();
        self.ensure_journal(state, root, &key);
        self.objects.begin_batch();
        let exclude = exclude_stamp(root.real_path());
        let journal = state.journal.as_ref().and_then(|s| s.journal.as_ref());
        let plan = match journal.map(Journal::begin) {
            None => Err("the journal is off".to_owned()),
            Some(Taken::Unknown(why)) => Err(why),
            Some(Taken::Complete(dirty)) => match &state.last {
                Some(last) if last.usable(&key, exclude) => Ok(Plan::new(dirty, &last.multi)),
                _ => Err("no earlier snapshot of this workspace in this process".to_owned()),
            },
        };
        let result = match plan {
            Ok(plan) => self.incremental(state, root, &key, &plan, exclude),
            Err(why) => {
                state.stats.last_walk_reason = Some(why);
                self.walk(state, root, &key, exclude).map(|s| (s, true))
            }
        };
        let result = result.and_then(|r| self.objects.commit_batch().map(|()| r));
        if result.is_err() {
            self.objects.abort_batch();
            // What this scan wrote is not in the store, and what the journal handed over
            // is in no snapshot: forget both, walk next time.
            state.known.clear();
            state.last = None;
            if let Some(journal) = state.journal.as_ref().and_then(|s| s.journal.as_ref()) {
                journal.invalidate("the last snapshot failed");
            }
        }
        result
    }

    fn ensure_journal(&self, state: &mut State, root: &Root, key: &str) {
        if !self.options.journal || state.journal.as_ref().is_some_and(|s| s.root == key) {
            return;
        }
        // Another root: its journal (if any) stops when dropped here.
        state.journal = None;
        let started = root
            .open_rel_dir(Path::new(""))
            .map_err(|e| e.to_string())
            .and_then(|dir| Journal::start(&dir, &self.dir.join(WATCH_DIR)));
        let (journal, off) = match started {
            Ok(journal) => (Some(journal), None),
            Err(why) => {
                tracing::info!(reason = %why, "checkpoints walk the workspace every time");
                (None, Some(why))
            }
        };
        state.journal = Some(JournalSlot {
            root: key.to_owned(),
            journal,
            off,
        });
    }

    fn walk(
        &self,
        state: &mut State,
        root: &Root,
        key: &str,
        exclude: Option<Stamp>,
    ) -> Result<Scanned, CheckpointError> {
        let none = HashMap::new();
        let no_dirs = HashMap::new();
        let State {
            cache,
            known,
            journal,
            ..
        } = state;
        let old_cache = if cache.root == key {
            &cache.entries
        } else {
            &none
        };
        self.progress.start(old_cache.len() as u64);
        let context = Context {
            old_cache,
            old_dirs: &no_dirs,
            plan: None,
            journal: journal.as_ref().and_then(|s| s.journal.as_ref()),
            progress: &self.progress,
        };
        let scanned = Scan::new(root, &self.objects, known, context).run();
        self.progress.stop();
        let mut scanned = scanned?;
        let entries = std::mem::take(&mut scanned.cache);
        if state.cache.root != key || state.cache.entries != entries {
            state.cache = StatCache {
                root: key.to_owned(),
                entries,
            };
            self.save_cache(state);
        }
        state.last = Some(LastScan {
            root: key.to_owned(),
            id: Some(scanned.id),
            dirs: std::mem::take(&mut scanned.dirs),
            multi: scanned
                .links
                .iter()
                .filter(|(_, multi)| *multi)
                .map(|(p, _)| p.clone())
                .collect(),
            exclude,
        });
        state.stats.walks += 1;
        state.last_walk = Some(Instant::now());
        state.since_walk = 0;
        Ok(scanned)
    }

    fn incremental(
        &self,
        state: &mut State,
        root: &Root,
        key: &str,
        plan: &Plan,
        exclude: Option<Stamp>,
    ) -> Result<(Scanned, bool), CheckpointError> {
        let Some(mut last) = state.last.take() else {
            return self.walk(state, root, key, exclude).map(|s| (s, true));
        };
        let State {
            cache,
            known,
            journal,
            ..
        } = &mut *state;
        let journal = journal.as_ref().and_then(|s| s.journal.as_ref());
        let context = Context {
            old_cache: &cache.entries,
            old_dirs: &last.dirs,
            plan: Some(plan),
            journal,
            progress: &self.progress,
        };
        let mut scanned = Scan::new(root, &self.objects, known, context).run()?;
        // A file that just got a second name: its other names are not known (a link raises
        // no event in their folders), and a write through one changes all. A walk finds
        // them, and from then on every multi-linked file is looked at each time.
        if let Some((path, _)) = scanned
            .links
            .iter()
            .find(|(p, multi)| *multi && !last.multi.contains(p))
        {
            state.stats.last_walk_reason = Some(format!("{path} has several names"));
            return self.walk(state, root, key, exclude).map(|s| (s, true));
        }
        for gone in std::mem::take(&mut scanned.gone) {
            last.forget(&gone);
        }
        last.dirs.extend(std::mem::take(&mut scanned.dirs));
        for (path, multi) in std::mem::take(&mut scanned.links) {
            if multi {
                last.multi.insert(path);
            } else {
                last.multi.remove(&path);
            }
        }
        last.id = Some(scanned.id);
        last.exclude = exclude;
        let changed = !scanned.cache.is_empty() || !scanned.uncached.is_empty();
        cache.entries.extend(std::mem::take(&mut scanned.cache));
        for path in std::mem::take(&mut scanned.uncached) {
            cache.entries.remove(&path);
        }
        state.last = Some(last);
        state.stats.incremental += 1;
        state.since_walk += 1;
        if changed {
            state.cache_dirty = true;
            if state.cache_saved.elapsed() >= CACHE_SAVE_EVERY {
                self.save_cache(state);
            }
        }
        if self.cross_check_due(state) {
            return self.cross_check(state, root, key, exclude, scanned);
        }
        Ok((scanned, false))
    }

    fn cross_check_due(&self, state: &State) -> bool {
        let every = self.options.cross_check_every;
        every > 0
            && (state.since_walk >= every
                || state
                    .last_walk
                    .is_none_or(|t| t.elapsed() >= CROSS_CHECK_AGE))
    }

    /// Walks right after an incremental snapshot and compares (unless something changed
    /// in between, which would make them differ rightly).
    fn cross_check(
        &self,
        state: &mut State,
        root: &Root,
        key: &str,
        exclude: Option<Stamp>,
        journal_gave: Scanned,
    ) -> Result<(Scanned, bool), CheckpointError> {
        let quiet = state
            .journal
            .as_ref()
            .and_then(|s| s.journal.as_ref())
            .map(|j| j.pending() == 0);
        state.stats.last_walk_reason = Some("cross-check".into());
        let walked = self.walk(state, root, key, exclude)?;
        if walked.id == journal_gave.id {
            if quiet == Some(true) {
                state.stats.cross_checks += 1;
            }
            // The same snapshot: say what the journal's scan did.
            return Ok((journal_gave, false));
        }
        if quiet == Some(true) {
            state.stats.cross_checks += 1;
            state.stats.disagreements += 1;
            tracing::warn!(
                journal = %journal_gave.id,
                walk = %walked.id,
                "the change journal missed a change; the walk's snapshot is kept"
            );
        }
        Ok((walked, true))
    }
}

/// `.git/info/exclude` as it is (the root's ignore file no watched folder holds).
fn exclude_stamp(root: &Path) -> Option<Stamp> {
    let meta = std::fs::symlink_metadata(root.join(".git/info/exclude")).ok()?;
    Some(Stamp {
        size: meta.size(),
        mtime_ns: meta.mtime() * 1_000_000_000 + meta.mtime_nsec(),
        ctime_ns: meta.ctime() * 1_000_000_000 + meta.ctime_nsec(),
        ino: meta.ino(),
        mode: meta.mode(),
    })
}
