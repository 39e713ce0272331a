//! Where one project's worktrees live: their records and their checkouts, and the wall
//! Paddock's own git runs behind there.

use std::path::PathBuf;

/// One project's folders: records in `records`, checkouts in `checkouts/<name>`; and the
/// wall Paddock's own git runs behind there.
#[derive(Debug, Clone)]
pub struct Layout {
    pub records: PathBuf,
    pub checkouts: PathBuf,
    pub wall: crate::wall::Wall,
}

impl Layout {
    pub(crate) fn record_path(&self, name: &str) -> PathBuf {
        self.records.join(format!("{name}.json"))
    }

    pub(crate) fn checkout_path(&self, name: &str) -> PathBuf {
        self.checkouts.join(name)
    }
}
