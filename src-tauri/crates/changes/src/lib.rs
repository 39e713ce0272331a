//! What changed in a workspace: a file's change as data, checkpoints of the workspace
//! (content-addressed, incremental) and restoring one.

mod diff;

pub use diff::{CONTEXT_LINES, MAX_DIFF_BYTES, MAX_DIFF_LINES, file_change, unified};
