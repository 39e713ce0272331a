//! Where Paddock keeps its own folders and those of sessions and agents, wherever the user
//! put them: what every wall hides (its data) or fences (other sessions' places).

use std::path::{Path, PathBuf};

/// Puts session checkouts in this folder instead of beside Paddock's data folder.
pub const WORKTREES_DIR_ENV: &str = "PADDOCK_WORKTREES_DIR";
/// `<data>-worktrees`: session checkouts, one folder per project.
pub(crate) const WORKTREES_SUFFIX: &str = "worktrees";
/// `<data>-agents`: external agents' homes, one per project and agent.
pub(crate) const AGENTS_SUFFIX: &str = "agents";

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

/// `<data>-<suffix>`: a folder of Paddock's kept beside its data folder, never inside it
/// (the wall hides that folder, and a writable place inside it would show it).
pub(crate) fn beside_data(data: &Path, suffix: &str) -> PathBuf {
    let name = data
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "paddock".into());
    data.with_file_name(format!("{name}-{suffix}"))
}

/// Folders of other sessions' and agents' files, hidden from every command but for the one
/// it works in, wherever they were put: every worktree checkout, every external agent's home.
pub(crate) fn fenced_dirs() -> Vec<PathBuf> {
    let Ok(data) = paddock_session::data_dir() else {
        return Vec::new();
    };
    [
        beside_data(&data, WORKTREES_SUFFIX),
        beside_data(&data, AGENTS_SUFFIX),
    ]
    .into_iter()
    .chain(
        std::env::var_os(WORKTREES_DIR_ENV)
            .filter(|d| !d.is_empty())
            .map(PathBuf::from),
    )
    .map(|d| d.canonicalize().unwrap_or(d))
    .collect()
}
