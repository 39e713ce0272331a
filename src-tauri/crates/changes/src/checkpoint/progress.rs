//! How far a snapshot has got, readable from other threads while it runs (a shell shows it
//! while the first snapshot of a workspace is taken in the background).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

/// A snapshot's progress.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScanProgress {
    /// A snapshot is being taken now.
    pub running: bool,
    /// Files looked at so far (read, or matched by the stat cache).
    pub files: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Files the last snapshot of this workspace had (0: not known yet).
    pub expected: u64,
}

#[derive(Debug, Default)]
pub(crate) struct Progress {
    running: AtomicBool,
    files: AtomicU64,
    bytes: AtomicU64,
    expected: AtomicU64,
}

impl Progress {
    pub fn start(&self, expected: u64) {
        self.files.store(0, Ordering::Relaxed);
        self.bytes.store(0, Ordering::Relaxed);
        self.expected.store(expected, Ordering::Relaxed);
        self.running.store(true, Ordering::Release);
    }

    pub fn stop(&self) {
        self.running.store(false, Ordering::Release);
    }

    pub fn file(&self, bytes: u64) {
        self.files.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    pub fn get(&self) -> ScanProgress {
        ScanProgress {
            running: self.running.load(Ordering::Acquire),
            files: self.files.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
            expected: self.expected.load(Ordering::Relaxed),
        }
    }
}
