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

/// A file Paddock wrote, shown read-only at another path (git's config without its
/// credentials, at `~/.gitconfig`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overlay {
    pub source: PathBuf,
    pub target: PathBuf,
}

/// The helper's instructions for one command. The mounts go in this order, each later one
/// shadowing what came before: the root read-only; `emptied` and `private` folders replaced
/// by empty ones; `visible` shown again read-only; `writable` bound writable; `read_only`
/// inside them; `overlays`; `private` made read-only; the `hidden` masks last, so nothing
/// bound after them can uncover one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Policy {
    pub engine: Engine,
    /// Folders the command may write (the workspace, its TMPDIR), real paths.
    pub writable: Vec<PathBuf>,
    /// Existing paths inside `writable` that stay read-only (`.git`, `.paddock`).
    pub read_only: Vec<PathBuf>,
    /// Folders that hold host sockets, replaced by empty writable ones (/tmp, /run).
    #[serde(default)]
    pub emptied: Vec<PathBuf>,
    /// Folders of people's files (the homes, /mnt, /media), replaced by empty read-only
    /// ones.
    #[serde(default)]
    pub private: Vec<PathBuf>,
    /// Existing paths inside `emptied` or `private` shown again, read-only: the project,
    /// toolchains, `readablePaths`, the helper itself.
    #[serde(default)]
    pub visible: Vec<PathBuf>,
    #[serde(default)]
    pub overlays: Vec<Overlay>,
    /// Existing paths masked last (credentials inside what is visible, Paddock's own
    /// folders, host sockets, the project's `hiddenPaths`).
    pub hidden: Vec<PathBuf>,
    /// The project grants the network.
    pub network: bool,
    /// The proxy's socket outside the wall: bound in at [`crate::PROXY_SOCKET`], and the
    /// helper bridges a loopback port to it and points the proxy variables there.
    #[serde(default)]
    pub proxy: Option<PathBuf>,
    /// Host loopback ports tunnelled to the proxy from the same port inside the wall.
    #[serde(default)]
    pub loopback: Vec<u16>,
    /// The Landlock ABI the kernel offers, when it has Landlock.
    pub landlock_abi: Option<u32>,
    /// Where the command starts.
    pub workdir: PathBuf,
}

impl Policy {
    /// Paths bound again after their folder was emptied: (path, writable), shortest first so
    /// a folder is in place before what is bound inside it.
    pub fn bound_back(&self) -> Vec<(PathBuf, bool)> {
        let covered = |p: &Path| {
            self.emptied
                .iter()
                .chain(&self.private)
                .any(|e| p.starts_with(e))
        };
        let mut out: Vec<(PathBuf, bool)> = self
            .visible
            .iter()
            .map(|p| (p.clone(), false))
            .chain(self.writable.iter().map(|p| (p.clone(), true)))
            .filter(|(p, _)| covered(p))
            .collect();
        out.sort_by_key(|(p, _)| p.components().count());
        out
    }
}

/// System folders that hold host sockets (D-Bus, X11, ssh-agent, docker) or other users'
/// files: replaced by empty ones.
pub const EMPTIED: &[&str] = &["/tmp", "/var/tmp", "/run", "/dev/shm"];

/// Folders of people's files, hidden whole besides the user's home: every home, mounted
/// drives, served and mailed files.
pub const PRIVATE_ROOTS: &[&str] = &["/home", "/root", "/mnt", "/media", "/srv", "/var/mail"];

/// Credentials and private data that stay masked wherever they become visible again (a
/// toolchain folder, a `readablePaths` entry, the workspace).
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
    ".config/git/credentials",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".yarnrc.yml",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".m2/settings.xml",
    ".gradle/gradle.properties",
    ".local/share/keyrings",
    ".password-store",
    ".bash_history",
    ".zsh_history",
    ".python_history",
    ".node_repl_history",
    ".psql_history",
    ".mysql_history",
    ".pgpass",
    ".my.cnf",
    ".vault-token",
    ".terraform.d",
    ".config/rclone",
    ".config/containers",
    ".claude",
    ".claude.json",
    ".codex",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    ".config/paddock",
    ".local/share/paddock",
    ".local/share/dev.paddock.app",
];

/// `paths` without entries inside another entry, sorted.
pub fn outermost(mut paths: Vec<PathBuf>) -> Vec<PathBuf> {
    paths.sort();
    paths.dedup();
    let mut out: Vec<PathBuf> = Vec::new();
    for p in paths {
        if !out.iter().any(|o| p.starts_with(o)) {
            out.push(p);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_entries_collapse_into_the_outer_one() {
        let paths = ["/root", "/home/u", "/home", "/root/x", "/mnt"].map(PathBuf::from);
        assert_eq!(
            outermost(paths.to_vec()),
            ["/home", "/mnt", "/root"].map(PathBuf::from)
        );
    }

    #[test]
    fn what_is_bound_back_comes_outer_first() {
        let policy = Policy {
            engine: Engine::Bubblewrap,
            writable: vec!["/root/p/ws".into(), "/tmp/t".into(), "/w".into()],
            read_only: Vec::new(),
            emptied: vec!["/tmp".into()],
            private: vec!["/root".into()],
            visible: vec!["/root/p".into(), "/usr/x".into()],
            overlays: Vec::new(),
            hidden: Vec::new(),
            network: false,
            proxy: None,
            loopback: Vec::new(),
            landlock_abi: None,
            workdir: "/w".into(),
        };
        assert_eq!(
            policy.bound_back(),
            [
                (PathBuf::from("/root/p"), false),
                (PathBuf::from("/tmp/t"), true),
                (PathBuf::from("/root/p/ws"), true),
            ]
        );
    }
}
