//! What changed in a workspace: a file's change as data, checkpoints of the workspace
//! (content-addressed, incremental) and restoring one.

mod checkpoint;
mod diff;

pub use checkpoint::{
    CheckpointError, CheckpointStore, JournalStats, MAX_DEPTH, MAX_ENTRIES, MAX_FILE_BYTES,
    MAX_IGNORE_FILE_BYTES, ScanProgress, SkipReason, Skipped, Snapshot, StoreOptions,
};
pub use diff::{CONTEXT_LINES, MAX_DIFF_BYTES, MAX_DIFF_LINES, file_change, unified};
