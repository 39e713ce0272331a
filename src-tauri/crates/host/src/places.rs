//! Where Paddock keeps its own folders and those of sessions and agents, wherever the user
//! put them: what every wall hides (its data) or fences (other sessions' places).

use std::path::{Path, PathBuf};

/// Puts session checkouts in this folder instead of beside Paddock's data folder.
pub const WORKTREES_DIR_ENV: &str = "PADDOCK_WORKTREES_DIR";

/// Paddock's own data wherever it was put (sessions of every project, trust): never seen
/// behind any of its walls.
pub(crate) fn data_dirs() -> Vec<PathBuf> {
    paddock_session::data_dir()
        .into_iter()
        .chain(
            crate::trust::TrustStore::open_default()
                .ok()
                .and_then(|t| t.path().parent().map(Path::to_path_buf)),
        )
        .collect()
}

/// Folders of other sessions' and agents' files, hidden from every command but for the one
/// it works in, wherever they were put: every worktree checkout, every external agent's home.
pub(crate) fn fenced_dirs() -> Vec<PathBuf> {
    let Ok(data) = paddock_session::data_dir() else {
        return Vec::new();
    };
    let name = data
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "paddock".into());
    let beside = |suffix: &str| data.with_file_name(format!("{name}-{suffix}"));
    [beside("worktrees"), beside("agents")]
        .into_iter()
        .chain(
            std::env::var_os(WORKTREES_DIR_ENV)
                .filter(|d| !d.is_empty())
                .map(PathBuf::from),
        )
        .map(|d| d.canonicalize().unwrap_or(d))
        .collect()
}
