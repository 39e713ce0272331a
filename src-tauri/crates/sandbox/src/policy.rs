//! What one confined command may do, as the parent decides it and the helper applies it.
//! Plain data: it crosses into the helper process as JSON.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Which wall builds the sandbox, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Engine {
    /// bubblewrap builds the namespaces and mounts; the helper runs inside it.
    Bubblewrap,
    /// The helper builds user, mount, PID (and network) namespaces itself.
    Namespaces,
    /// Landlock, seccomp and a reaper only.
    Landlock,
}

/// The helper's instructions for one command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Policy {
    pub engine: Engine,
    /// Folders the command may write (the workspace, its TMPDIR), real paths.
    pub writable: Vec<PathBuf>,
    /// Existing paths inside `writable` that stay read-only (`.git`, `.paddock`).
    pub read_only: Vec<PathBuf>,
    /// Existing folders and files hidden from the command (credentials, sockets, Paddock's
    /// own data).
    pub hidden: Vec<PathBuf>,
    /// The project grants the network.
    pub network: bool,
    /// The Landlock ABI the kernel offers, when it has Landlock.
    pub landlock_abi: Option<u32>,
    /// Where the command starts.
    pub workdir: PathBuf,
}

impl Policy {
    /// Whether `path` is under one of the writable folders.
    pub fn is_writable(&self, path: &Path) -> bool {
        self.writable.iter().any(|w| path.starts_with(w))
    }
}

/// Folders and files under the home directory that hold credentials or private data: hidden
/// from bash wherever the engine can hide them.
pub const HIDDEN_IN_HOME: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".kube",
    ".docker",
    ".config/gh",
    ".config/hub",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".local/share/keyrings",
    ".password-store",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    ".config/paddock",
    ".local/share/paddock",
    ".local/share/dev.paddock.app",
];

/// System folders that hold host sockets (D-Bus, X11, ssh-agent, docker) or other users'
/// files: replaced by empty ones.
pub const EMPTIED: &[&str] = &["/tmp", "/var/tmp", "/run", "/dev/shm"];

/// The paths to hide for a home directory and a data directory (Paddock's sessions), plus
/// the project's own `extra`: the ones that exist, outside the writable folders.
pub fn hidden_paths(
    home: Option<&Path>,
    data_dir: Option<&Path>,
    extra: &[PathBuf],
    writable: &[PathBuf],
) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    if let Some(home) = home {
        out.extend(HIDDEN_IN_HOME.iter().map(|rel| home.join(rel)));
    }
    out.extend(data_dir.map(Path::to_path_buf));
    out.extend(extra.iter().cloned());
    out.retain(|p| {
        std::fs::symlink_metadata(p).is_ok() && !writable.iter().any(|w| w.starts_with(p))
    });
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_existing_paths_outside_the_workspace_are_hidden() {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".ssh")).unwrap();
        std::fs::write(home.path().join(".netrc"), "x").unwrap();
        std::fs::create_dir_all(home.path().join(".aws/ws")).unwrap();
        let ws = home.path().join(".aws/ws");
        let hidden = hidden_paths(Some(home.path()), None, &[], &[ws]);
        assert_eq!(
            hidden,
            [home.path().join(".netrc"), home.path().join(".ssh")],
            "a folder holding the workspace is not hidden; missing ones are skipped"
        );
    }
}
