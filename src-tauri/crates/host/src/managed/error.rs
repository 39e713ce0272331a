//! The managed policy's errors: a file that cannot be used, and what it refuses.

use std::path::PathBuf;

/// A policy file that cannot be used: runs stop until it is fixed.
#[derive(Debug, thiserror::Error)]
#[error("the managed policy {} cannot be used: {why}. Runs stop until an administrator fixes it", path.display())]
pub struct PolicyFileError {
    pub path: PathBuf,
    pub why: String,
}

/// An edit or a run's flag the managed policy does not allow.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} is not allowed here: {why} (managed policy {})", file.display())]
pub struct PolicyRefusal {
    pub what: String,
    pub why: String,
    pub file: PathBuf,
}
