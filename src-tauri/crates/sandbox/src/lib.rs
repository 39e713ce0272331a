//! The wall bash runs behind (bubblewrap, the helper's own namespaces, or Landlock): what a
//! command sees, the files other programs run that it may not change unseen, its
//! environment and redaction, and an honest account of what each host enforces. File access
//! beneath the workspace is `paddock-guard`'s.

#[cfg(unix)]
pub mod autorun;
#[cfg(target_os = "linux")]
mod bwrap;
mod confine;
mod env;
#[cfg(unix)]
pub mod git_checks;
#[cfg(unix)]
mod gitconfig;
#[cfg(target_os = "linux")]
mod hardlinks;
#[cfg(target_os = "linux")]
pub mod helper;
#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
mod owner;
pub mod policy;
mod redact;
#[cfg(unix)]
mod runtime;
#[cfg(target_os = "linux")]
mod seccomp;
#[cfg(unix)]
mod sockets;
mod status;
pub mod userns;
#[cfg(unix)]
mod view;

use std::path::PathBuf;

pub use confine::{Confinement, ConfinementError, describe, engine};
pub use env::{ENV_ALLOW_LIST, looks_secret, scrubbed_env};
#[cfg(target_os = "linux")]
pub use helper::{HELPER_SUBCOMMAND, HelperCommand};
#[cfg(target_os = "linux")]
pub use owner::{OWNER_ENV, sweep_walls_left_behind};
pub use policy::Engine;
pub use redact::{REDACTED, Redactor};
#[cfg(unix)]
pub use runtime::runtime_dir;
#[cfg(unix)]
pub use view::{View, own_dirs, private_folders};

/// How bash is confined. The default is the safe one: sandbox on, no network, and bash
/// refused where no wall can be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxConfig {
    /// Confine bash with the OS sandbox. Turning it off is the user accepting unconfined bash.
    pub enabled: bool,
    /// The project grants bash network access.
    pub bash_network: bool,
    /// Run bash even where no wall can be built; the result then says so.
    pub allow_unconfined: bool,
    /// The session's private TMPDIR (writable under the sandbox). `None`: a fresh one per
    /// command, removed afterwards.
    pub tmp_dir: Option<PathBuf>,
    /// The strongest engine to use (`None`: the strongest this host has). Lets tests and
    /// `paddock doctor` look at the fallbacks.
    pub strongest: Option<Engine>,
    /// Paths hidden from bash besides the built-in list (credentials): a project's
    /// `hiddenPaths`. Masked last, so they stay hidden inside the workspace too.
    pub hidden: Vec<PathBuf>,
    /// Paths bash may read although they are in a hidden folder (a home): the project, the
    /// user's `readablePaths`. Toolchains and the folders on `PATH` are added by the wall.
    pub readable: Vec<PathBuf>,
    /// Paddock's own folders (sessions, trust, settings), wherever they were put: never
    /// visible to bash, and never a workspace.
    pub own: Vec<PathBuf>,
    /// Folders hidden whole wherever they lie, except the writable and readable paths
    /// inside them: the folders of every worktree checkout and every agent home (others'
    /// stay hidden while this one works in one), a worktree session's main checkout.
    pub fenced: Vec<PathBuf>,
    /// Files other programs run, besides [`autorun::DEFAULT_AUTORUN`] (the settings'
    /// `autoRunFiles`): read-only behind the wall, held when a call writes them.
    pub auto_run: Vec<String>,
    /// Paths inside the writable folders that stay read-only (`.git`, `.paddock`).
    pub read_only: Vec<PathBuf>,
    /// The home folder whose credentials are hidden (`None`: `$HOME`).
    pub home: Option<PathBuf>,
    /// bash's network is an allow-list served by Paddock's proxy: how many host rules it
    /// has (for the status). Without `bash_network`, and only where a network namespace
    /// isolates the command.
    pub network_rules: Option<usize>,
    /// This command's way out: the proxy's Unix socket outside the wall, bound into it at
    /// [`PROXY_SOCKET`] and bridged to a loopback port (set per call).
    pub proxy_socket: Option<PathBuf>,
    /// Ports of the host's loopback that network rules name (`127.0.0.1:11434`): behind the
    /// wall, `127.0.0.1` is the wall's own, so the same port there is a tunnel to the proxy,
    /// which still decides. A program then reaches a local model server as it would outside.
    pub loopback_ports: Vec<u16>,
    /// Files Paddock wrote, shown read-only over existing files behind walls that mount
    /// (the git front over `/usr/bin/git`, set per call).
    pub overlays: Vec<policy::Overlay>,
}

/// Where the proxy's socket is seen behind the wall.
pub const PROXY_SOCKET: &str = "/run/paddock-proxy.sock";

impl Default for SandboxConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            bash_network: false,
            allow_unconfined: false,
            tmp_dir: None,
            strongest: None,
            hidden: Vec::new(),
            readable: Vec::new(),
            own: Vec::new(),
            fenced: Vec::new(),
            auto_run: Vec::new(),
            read_only: Vec::new(),
            home: None,
            network_rules: None,
            proxy_socket: None,
            loopback_ports: Vec::new(),
            overlays: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_safe_ones() {
        let c = SandboxConfig::default();
        assert!(c.enabled && !c.bash_network && !c.allow_unconfined && c.tmp_dir.is_none());
        assert!(c.strongest.is_none());
    }
}
