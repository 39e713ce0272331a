//! Where tools may reach: the path guard that keeps file access beneath the workspace, and
//! the environment, redaction and OS confinement that commands run under.

mod env;
#[cfg(target_os = "linux")]
mod linux;
mod path_guard;
mod redact;
mod replace;
mod resolve;
mod untrusted;

use std::path::{Path, PathBuf};

use paddock_protocol::{FsConfinement, NetworkConfinement, SandboxStatus, WorkspaceMode};

pub use env::{ENV_ALLOW_LIST, looks_secret, scrubbed_env};
pub use path_guard::{PathError, PathGuard, READ_ONLY_DIRS, Root};
pub use redact::{REDACTED, Redactor};
pub use resolve::{MAX_SYMLINK_HOPS, Resolved, display_rel};
pub use untrusted::{UntrustedFileError, check_readable, read_untrusted};

/// How bash is confined. The default is the safe one: sandbox on, no network, and bash
/// refused where the sandbox cannot be had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxConfig {
    /// Confine bash with the OS sandbox. Turning it off is the user accepting unconfined bash.
    pub enabled: bool,
    /// The project grants bash network access.
    pub bash_network: bool,
    /// Run bash even where (full) confinement is unavailable; the result then says so.
    pub allow_unconfined: bool,
    /// The session's private TMPDIR (writable under the sandbox). `None`: a fresh one per
    /// command, removed afterwards.
    pub tmp_dir: Option<PathBuf>,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            bash_network: false,
            allow_unconfined: false,
            tmp_dir: None,
        }
    }
}

/// The status for these settings on this machine, writing only `writable`.
pub fn describe(
    config: &SandboxConfig,
    mode: WorkspaceMode,
    root: &Path,
    writable: &[PathBuf],
) -> SandboxStatus {
    let (filesystem, network) = if config.enabled {
        confinement_available(config.bash_network)
    } else {
        let network = if config.bash_network {
            NetworkConfinement::Granted
        } else {
            NetworkConfinement::Disabled
        };
        (FsConfinement::Disabled, network)
    };
    assemble(config, mode, root, writable, filesystem, network)
}

/// The status from what can be enforced; whether bash runs follows from the settings.
fn assemble(
    config: &SandboxConfig,
    mode: WorkspaceMode,
    root: &Path,
    writable: &[PathBuf],
    filesystem: FsConfinement,
    network: NetworkConfinement,
) -> SandboxStatus {
    let fs_ok = matches!(filesystem, FsConfinement::Landlock { .. });
    let net_ok = network.is_isolated() || network == NetworkConfinement::Granted;
    let fully_confined = fs_ok && net_ok;
    let bash_runs = fully_confined || config.allow_unconfined || !config.enabled;
    let writable_roots = if fs_ok {
        writable.iter().map(|p| p.display().to_string()).collect()
    } else {
        Vec::new()
    };
    let summary = summarize(&filesystem, &network, writable_roots.len(), bash_runs);
    SandboxStatus {
        workspace_mode: mode,
        workspace_root: root.display().to_string(),
        filesystem,
        network,
        writable_roots,
        fully_confined,
        bash_runs,
        summary,
    }
}

#[cfg(target_os = "linux")]
fn confinement_available(network_granted: bool) -> (FsConfinement, NetworkConfinement) {
    let probe = linux::probe();
    let filesystem = match &probe.landlock {
        Ok(abi) => FsConfinement::Landlock { abi: *abi },
        Err(reason) => FsConfinement::Unavailable {
            reason: reason.clone(),
        },
    };
    let network = if network_granted {
        NetworkConfinement::Granted
    } else {
        match (&probe.netns, &probe.landlock) {
            (Ok(()), _) => NetworkConfinement::Namespace,
            (Err(_), Ok(abi)) if linux::landlock_covers_tcp(*abi) => {
                NetworkConfinement::LandlockTcp
            }
            (Err(reason), _) => NetworkConfinement::Unavailable {
                reason: reason.clone(),
            },
        }
    };
    (filesystem, network)
}

#[cfg(not(target_os = "linux"))]
fn confinement_available(network_granted: bool) -> (FsConfinement, NetworkConfinement) {
    let reason = "OS confinement for bash is implemented on Linux only".to_owned();
    let network = if network_granted {
        NetworkConfinement::Granted
    } else {
        NetworkConfinement::Unavailable {
            reason: reason.clone(),
        }
    };
    (FsConfinement::Unavailable { reason }, network)
}

fn summarize(
    fs: &FsConfinement,
    net: &NetworkConfinement,
    writable: usize,
    bash_runs: bool,
) -> String {
    let fs = match fs {
        FsConfinement::Landlock { abi } => {
            format!("Landlock ABI {abi}: writes only in {writable} folders")
        }
        FsConfinement::Unavailable { reason } => format!("no file-system confinement ({reason})"),
        FsConfinement::Disabled => "sandbox turned off".to_owned(),
    };
    let net = match net {
        NetworkConfinement::Namespace => "network isolated (private namespace)".to_owned(),
        NetworkConfinement::LandlockTcp => {
            "TCP blocked by Landlock (other protocols open)".to_owned()
        }
        NetworkConfinement::Granted => "network allowed by the project".to_owned(),
        NetworkConfinement::Unavailable { reason } => format!("network NOT isolated ({reason})"),
        NetworkConfinement::Disabled => "network not isolated".to_owned(),
    };
    let runs = if bash_runs {
        ""
    } else {
        "; bash refused until unconfined bash is allowed in settings"
    };
    format!("{fs}; {net}{runs}")
}

/// Why a command cannot be started confined. The text is what the model sees.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfinementError {
    /// Confinement is incomplete here and the settings do not accept unconfined commands.
    #[error(
        "bash is disabled on this machine: {summary}. The user can allow unconfined bash in \
         the project settings."
    )]
    Unavailable { summary: String },
    /// The Landlock ruleset could not be built.
    #[error("the sandbox could not be prepared: {0}")]
    Landlock(String),
}

/// The confinement applied to one bash command.
#[derive(Debug)]
pub struct Confinement {
    pub status: SandboxStatus,
    #[cfg(target_os = "linux")]
    landlock: Option<linux::LandlockRules>,
    #[cfg(target_os = "linux")]
    netns: Option<linux::IdMaps>,
}

impl Confinement {
    /// Builds what `status` says can be enforced. Refuses (with the reason the model sees)
    /// when confinement is incomplete and the settings do not accept that.
    pub fn prepare(
        config: &SandboxConfig,
        mode: WorkspaceMode,
        root: &Path,
        writable: &[PathBuf],
    ) -> Result<Self, ConfinementError> {
        let status = describe(config, mode, root, writable);
        if !status.bash_runs {
            return Err(ConfinementError::Unavailable {
                summary: status.summary,
            });
        }
        Self::build(status, writable)
    }

    #[cfg(target_os = "linux")]
    fn build(status: SandboxStatus, writable: &[PathBuf]) -> Result<Self, ConfinementError> {
        let landlock = match status.filesystem {
            FsConfinement::Landlock { .. } => Some(
                linux::LandlockRules::build(
                    writable,
                    status.network == NetworkConfinement::LandlockTcp,
                    status.network.is_isolated(),
                )
                .map_err(ConfinementError::Landlock)?,
            ),
            _ => None,
        };
        let netns = (status.network == NetworkConfinement::Namespace).then(linux::IdMaps::current);
        Ok(Self {
            status,
            landlock,
            netns,
        })
    }

    #[cfg(not(target_os = "linux"))]
    fn build(status: SandboxStatus, _writable: &[PathBuf]) -> Result<Self, ConfinementError> {
        Ok(Self { status })
    }

    /// A line for the result when the command does not run fully confined.
    pub fn note(&self) -> Option<String> {
        if self.status.fully_confined {
            None
        } else {
            Some(format!("[ran unconfined: {}]", self.status.summary))
        }
    }

    /// Arranges for the child to enter the sandbox between fork and exec.
    #[cfg(target_os = "linux")]
    pub fn apply(self, cmd: &mut tokio::process::Command) {
        let mut landlock = self.landlock;
        let netns = self.netns;
        if landlock.is_none() && netns.is_none() {
            return;
        }
        // SAFETY: the hook runs in the forked child and only makes system calls on memory
        // prepared before the fork (`unshare`, writes to /proc/self, an ioctl, prctl and
        // landlock_restrict_self); it does not allocate or take locks.
        #[allow(unsafe_code)]
        unsafe {
            cmd.pre_exec(move || {
                if let Some(maps) = &netns {
                    linux::enter_namespaces(maps)?;
                }
                if let Some(rules) = landlock.take() {
                    rules.restrict_self()?;
                }
                Ok(())
            });
        }
    }

    #[cfg(not(target_os = "linux"))]
    pub fn apply(self, _cmd: &mut tokio::process::Command) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(config: &SandboxConfig, fs: FsConfinement, net: NetworkConfinement) -> SandboxStatus {
        let root = Path::new("/w");
        let writable = [root.to_path_buf(), PathBuf::from("/t")];
        assemble(config, WorkspaceMode::Project, root, &writable, fs, net)
    }

    fn unavailable() -> (FsConfinement, NetworkConfinement) {
        let reason = "not here".to_owned();
        (
            FsConfinement::Unavailable {
                reason: reason.clone(),
            },
            NetworkConfinement::Unavailable { reason },
        )
    }

    #[test]
    fn full_confinement_runs_and_lists_writable_roots() {
        let s = status(
            &SandboxConfig::default(),
            FsConfinement::Landlock { abi: 7 },
            NetworkConfinement::Namespace,
        );
        assert!(s.fully_confined && s.bash_runs);
        assert_eq!(s.writable_roots, ["/w", "/t"]);
        assert_eq!(
            s.summary,
            "Landlock ABI 7: writes only in 2 folders; network isolated (private namespace)"
        );
    }

    #[test]
    fn missing_confinement_refuses_bash_unless_accepted() {
        let (fs, net) = unavailable();
        let s = status(&SandboxConfig::default(), fs.clone(), net.clone());
        assert!(!s.fully_confined && !s.bash_runs);
        assert!(s.writable_roots.is_empty());
        assert!(s.summary.contains("bash refused"), "{}", s.summary);
        let accepting = SandboxConfig {
            allow_unconfined: true,
            ..SandboxConfig::default()
        };
        let s = status(&accepting, fs, net);
        assert!(!s.fully_confined && s.bash_runs);
    }

    #[test]
    fn partial_confinement_is_not_full() {
        // Landlock but no way to isolate the network.
        let s = status(
            &SandboxConfig::default(),
            FsConfinement::Landlock { abi: 3 },
            NetworkConfinement::Unavailable {
                reason: "no namespaces".to_owned(),
            },
        );
        assert!(!s.fully_confined && !s.bash_runs);
        assert!(s.summary.contains("network NOT isolated"), "{}", s.summary);
        // A granted network needs no isolation.
        let granted = SandboxConfig {
            bash_network: true,
            ..SandboxConfig::default()
        };
        let s = status(
            &granted,
            FsConfinement::Landlock { abi: 3 },
            NetworkConfinement::Granted,
        );
        assert!(s.fully_confined && s.bash_runs);
    }

    #[test]
    fn turning_the_sandbox_off_is_consent() {
        let off = SandboxConfig {
            enabled: false,
            ..SandboxConfig::default()
        };
        let s = describe(&off, WorkspaceMode::AgentWorkspace, Path::new("/w"), &[]);
        assert_eq!(s.filesystem, FsConfinement::Disabled);
        assert_eq!(s.network, NetworkConfinement::Disabled);
        assert!(!s.fully_confined && s.bash_runs);
        assert!(s.summary.starts_with("sandbox turned off"));
    }

    #[test]
    fn defaults_are_the_safe_ones() {
        let c = SandboxConfig::default();
        assert!(c.enabled && !c.bash_network && !c.allow_unconfined && c.tmp_dir.is_none());
    }
}
