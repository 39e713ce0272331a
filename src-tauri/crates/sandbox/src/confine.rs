//! Putting one command behind the wall: probe what this host offers (once per process), say
//! what is enforced, and build the command line: bubblewrap and the helper, or the helper
//! alone, or (when the user accepts it) the bare command.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use paddock_protocol::{SandboxStatus, WorkspaceMode};

use crate::SandboxConfig;
use crate::policy::Engine;
use crate::status::{Gaps, HostWalls, assemble, choose};

/// Why a command cannot be started behind the wall. The text is what the model sees.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfinementError {
    /// No wall can be built here and the settings do not accept unconfined commands.
    #[error(
        "bash is disabled on this machine: {summary}. The user can allow unconfined bash in \
         the project settings."
    )]
    Unavailable { summary: String },
}

/// The status for these settings on this machine, writing only `writable`.
pub fn describe(
    config: &SandboxConfig,
    mode: WorkspaceMode,
    root: &Path,
    writable: &[PathBuf],
) -> SandboxStatus {
    let walls = host_walls();
    let engine = choose(config, walls);
    let view = view_for(config, engine, writable);
    let gaps = gaps(engine, root, writable, view.as_ref());
    assemble(config, mode, root, writable, walls, engine, &gaps)
}

/// The engine bash gets with these settings on this machine (`None`: no wall).
pub fn engine(config: &SandboxConfig) -> Option<Engine> {
    choose(config, host_walls())
}

/// What the command will see, for the engines that hide files.
#[cfg(unix)]
fn view_for(
    config: &SandboxConfig,
    engine: Option<Engine>,
    writable: &[PathBuf],
) -> Option<crate::view::View> {
    if !matches!(engine, Some(Engine::Bubblewrap | Engine::Namespaces)) {
        return None;
    }
    #[cfg(target_os = "linux")]
    let keep: Vec<PathBuf> = crate::helper::default()
        .map(|h| h.program.clone())
        .into_iter()
        .chain(resolver())
        .collect();
    #[cfg(not(target_os = "linux"))]
    let keep: Vec<PathBuf> = Vec::new();
    Some(crate::view::View::compute(config, writable, &keep, true))
}

#[cfg(not(unix))]
fn view_for(_: &SandboxConfig, _: Option<Engine>, _: &[PathBuf]) -> Option<()> {
    None
}

/// One command behind the wall.
#[derive(Debug)]
pub struct Confinement {
    pub status: SandboxStatus,
    /// The program and arguments to put before the command; empty runs it bare.
    prefix: Vec<OsString>,
    #[cfg(target_os = "linux")]
    policy: Option<(crate::policy::Policy, Option<crate::bwrap::Bwrap>)>,
}

impl Confinement {
    /// Builds what `describe` says can be enforced for a command working in `root`. Refuses
    /// (with the reason the model sees) when no wall can be built and the settings do not
    /// accept that.
    pub fn prepare(
        config: &SandboxConfig,
        mode: WorkspaceMode,
        root: &Path,
        writable: &[PathBuf],
    ) -> Result<Self, ConfinementError> {
        let walls = host_walls();
        let engine = choose(config, walls);
        let view = view_for(config, engine, writable);
        let gaps = gaps(engine, root, writable, view.as_ref());
        let status = assemble(config, mode, root, writable, walls, engine, &gaps);
        if !status.bash_runs {
            return Err(ConfinementError::Unavailable {
                summary: status.summary,
            });
        }
        Ok(Self::plan(status, config, engine, root, writable, view))
    }

    #[cfg(target_os = "linux")]
    fn plan(
        status: SandboxStatus,
        config: &SandboxConfig,
        engine: Option<Engine>,
        root: &Path,
        writable: &[PathBuf],
        view: Option<crate::view::View>,
    ) -> Self {
        let Some(engine) = engine else {
            return Self {
                status,
                prefix: Vec::new(),
                policy: None,
            };
        };
        let view = view.unwrap_or_default();
        let policy = crate::policy::Policy {
            engine,
            writable: writable.to_vec(),
            read_only: config
                .read_only
                .iter()
                .filter(|p| p.exists() && writable.iter().any(|w| p.starts_with(w)))
                .cloned()
                .collect(),
            emptied: view.emptied,
            private: view.private,
            visible: view.visible,
            overlays: view
                .overlays
                .into_iter()
                .chain(
                    config
                        .overlays
                        .iter()
                        .filter(|o| o.target.is_file())
                        .cloned(),
                )
                .collect(),
            // Nothing of the host's may mask the proxy's socket.
            hidden: view
                .hidden
                .into_iter()
                .filter(|h| h.as_path() != Path::new(crate::PROXY_SOCKET))
                .collect(),
            network: config.bash_network,
            // An allow-list needs a network namespace to be the only way out.
            proxy: config
                .proxy_socket
                .clone()
                .filter(|_| !config.bash_network && engine != Engine::Landlock),
            loopback: config.loopback_ports.clone(),
            landlock_abi: host_walls().landlock.as_ref().ok().copied(),
            workdir: root.to_path_buf(),
        };
        let bwrap = (engine == Engine::Bubblewrap)
            .then(|| probed().bwrap.clone().ok())
            .flatten();
        Self {
            status,
            prefix: Vec::new(),
            policy: Some((policy, bwrap)),
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn plan(
        status: SandboxStatus,
        _config: &SandboxConfig,
        _engine: Option<Engine>,
        _root: &Path,
        _writable: &[PathBuf],
        _view: Option<()>,
    ) -> Self {
        Self {
            status,
            prefix: Vec::new(),
        }
    }

    /// Whether the command never ran because a path the wall masks (a host socket that
    /// closed, a file deleted) vanished between [`Self::command`] and bubblewrap's mounts.
    /// Then it drops that mask, so the command can be started again. Anything the command
    /// printed on stdout, or more than bubblewrap's one line, means it ran.
    pub fn lost_a_mask(&mut self, stdout_bytes: u64, stderr: &str) -> bool {
        #[cfg(target_os = "linux")]
        if let Some((policy, Some(_))) = &mut self.policy
            && stdout_bytes == 0
            && let Some(gone) = crate::bwrap::vanished_mount(stderr)
            && std::fs::symlink_metadata(&gone).is_err()
            && let Some(at) = policy.hidden.iter().position(|h| *h == gone)
        {
            policy.hidden.remove(at);
            return true;
        }
        let _ = (stdout_bytes, stderr);
        false
    }

    /// A line for the result when the command does not run behind a wall.
    pub fn note(&self) -> Option<String> {
        self.is_bare()
            .then(|| format!("[ran unconfined: {}]", self.status.summary))
    }

    fn is_bare(&self) -> bool {
        #[cfg(target_os = "linux")]
        return self.policy.is_none() && self.prefix.is_empty();
        #[cfg(not(target_os = "linux"))]
        return self.prefix.is_empty();
    }

    /// The process to spawn for `program args`: behind the wall, or bare.
    pub fn command(&self, program: &OsStr, args: &[&OsStr]) -> tokio::process::Command {
        let argv = self.argv(program, args);
        let mut cmd = tokio::process::Command::new(&argv[0]);
        cmd.args(&argv[1..]);
        cmd
    }

    /// The same process for a caller that waits synchronously (Paddock's own git).
    pub fn std_command(&self, program: &OsStr, args: &[&OsStr]) -> std::process::Command {
        let argv = self.argv(program, args);
        let mut cmd = std::process::Command::new(&argv[0]);
        cmd.args(&argv[1..]);
        cmd
    }

    /// The command line for `program args`: behind the wall, or bare; never empty.
    pub fn argv(&self, program: &OsStr, args: &[&OsStr]) -> Vec<OsString> {
        let mut argv: Vec<OsString> = self.prefix.clone();
        let inner: Vec<OsString> = std::iter::once(program.to_os_string())
            .chain(args.iter().map(|a| a.to_os_string()))
            .collect();
        #[cfg(target_os = "linux")]
        if let (Some((policy, bwrap)), Some(helper)) = (&self.policy, crate::helper::default()) {
            // The wall's first process is always the helper, told which Paddock process
            // starts it (this one): it dies with it, even one that dies during the start.
            let owner = crate::owner::Owner::this_process();
            match bwrap {
                Some(b) => {
                    let pinned =
                        crate::hardlinks::outside_links_for(&policy.workdir, &policy.writable);
                    // Looked at again just before the mounts: what is gone needs no mask, and
                    // bubblewrap cannot mount over nothing in a read-only folder.
                    let mut now = policy.clone();
                    now.hidden.retain(|p| std::fs::symlink_metadata(p).is_ok());
                    let mut bubblewrap = vec![b.path.clone().into_os_string()];
                    bubblewrap.extend(crate::bwrap::command_line(
                        b,
                        &now,
                        &pinned.files,
                        &helper.argv(policy, &inner),
                    ));
                    match &owner {
                        Some(owner) => argv.extend(helper.launcher_argv(owner, &bubblewrap)),
                        None => argv.extend(bubblewrap),
                    }
                }
                None => argv.extend(match &owner {
                    Some(owner) => helper.argv_for(owner, policy, &inner),
                    None => helper.argv(policy, &inner),
                }),
            }
        }
        if argv.is_empty() {
            argv = inner;
        }
        argv
    }
}

/// Where `/etc/resolv.conf` leads (often under /run, which the wall empties): kept, so
/// DNS works when the network is granted.
#[cfg(target_os = "linux")]
fn resolver() -> Option<PathBuf> {
    std::fs::canonicalize("/etc/resolv.conf").ok()
}

/// What the wall shows and leaves out for a workspace.
#[cfg(unix)]
fn gaps(
    engine: Option<Engine>,
    root: &Path,
    writable: &[PathBuf],
    view: Option<&crate::view::View>,
) -> Gaps {
    let mut gaps = Gaps::default();
    #[cfg(target_os = "linux")]
    if engine == Some(Engine::Bubblewrap) && root.is_dir() {
        let links = crate::hardlinks::outside_links_for(root, writable);
        gaps.pinned = links.files.len();
        gaps.links_incomplete = links.incomplete;
    }
    if let Some(view) = view {
        let shown = |p: &PathBuf| p.display().to_string();
        gaps.private = view
            .private
            .iter()
            .chain(&view.emptied)
            .map(shown)
            .collect();
        gaps.visible = view.visible.iter().map(shown).collect();
        gaps.masked = view.hidden.len() - view.sockets;
        gaps.sockets = view.sockets;
        gaps.git_config = !view.overlays.is_empty();
        gaps.refused = view
            .refused
            .iter()
            .map(|r| format!("{} ({})", r.path.display(), r.why))
            .collect();
    }
    gaps
}

#[cfg(not(unix))]
fn gaps(_: Option<Engine>, _: &Path, _: Option<&()>) -> Gaps {
    Gaps::default()
}

/// What this host offers, probed once per process.
#[cfg(target_os = "linux")]
struct Probed {
    walls: HostWalls,
    bwrap: Result<crate::bwrap::Bwrap, (String, String)>,
}

#[cfg(target_os = "linux")]
fn probed() -> &'static Probed {
    use std::sync::OnceLock;
    static PROBED: OnceLock<Probed> = OnceLock::new();
    PROBED.get_or_init(|| {
        let landlock = crate::linux::landlock_abi().clone();
        let Some(helper) = crate::helper::default() else {
            let missing = "the sandbox helper (paddock-sandbox-helper) is not installed beside \
                           Paddock; build it with `cargo build -p paddock-sandbox`"
                .to_owned();
            return Probed {
                walls: HostWalls {
                    bubblewrap: Err((missing.clone(), String::new())),
                    namespaces: Err((missing.clone(), String::new())),
                    landlock,
                    helper_missing: Some(missing.clone()),
                },
                bwrap: Err((missing, String::new())),
            };
        };
        let trial = |engine: Engine| {
            let policy = crate::policy::Policy {
                engine,
                writable: Vec::new(),
                read_only: Vec::new(),
                emptied: Vec::new(),
                private: Vec::new(),
                visible: Vec::new(),
                overlays: Vec::new(),
                hidden: Vec::new(),
                network: false,
                proxy: None,
                loopback: Vec::new(),
                landlock_abi: landlock.as_ref().ok().copied(),
                workdir: PathBuf::from("/"),
            };
            helper.argv(&policy, &[OsString::from("/bin/true")])
        };
        let bwrap = crate::bwrap::probe(&trial(Engine::Bubblewrap));
        let namespaces = run_trial(&trial(Engine::Namespaces)).map_err(|trial| {
            let bwrap = bwrap.as_ref().ok().map(|b| b.path.clone());
            let state = crate::userns::HostState::read(&helper.program, bwrap.as_deref());
            crate::userns::why_no_namespaces(&state, &trial)
        });
        Probed {
            walls: HostWalls {
                bubblewrap: bwrap
                    .as_ref()
                    .map(|b| b.version.clone())
                    .map_err(Clone::clone),
                namespaces,
                landlock,
                helper_missing: None,
            },
            bwrap,
        }
    })
}

/// Runs a trial command line; `Err` has the first line it printed.
#[cfg(target_os = "linux")]
fn run_trial(argv: &[OsString]) -> Result<(), String> {
    let out = std::process::Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        let text = String::from_utf8_lossy(&out.stderr);
        Err(text.lines().last().unwrap_or("failed").trim().to_owned())
    }
}

#[cfg(target_os = "linux")]
fn host_walls() -> &'static HostWalls {
    &probed().walls
}

#[cfg(not(target_os = "linux"))]
fn host_walls() -> &'static HostWalls {
    use std::sync::OnceLock;
    static WALLS: OnceLock<HostWalls> = OnceLock::new();
    WALLS.get_or_init(|| {
        let reason = "OS confinement for bash is implemented on Linux only".to_owned();
        HostWalls {
            bubblewrap: Err((reason.clone(), String::new())),
            namespaces: Err((reason.clone(), String::new())),
            landlock: Err(reason.clone()),
            helper_missing: Some(reason),
        }
    })
}
