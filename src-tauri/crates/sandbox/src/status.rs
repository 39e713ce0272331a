//! The status people see: which engine builds bash's wall on this host, and each protection
//! it gives (enforced, partial with why, absent with the fix).

use std::path::{Path, PathBuf};

use paddock_protocol::{
    Protection, ProtectionKind, ProtectionState, SandboxEngine, SandboxStatus, WorkspaceMode,
};

use crate::SandboxConfig;
use crate::policy::Engine;

mod engines;

/// The first Landlock ABI that scopes abstract Unix sockets and signals (Linux 6.12).
const LANDLOCK_SCOPE_ABI: u32 = 6;

/// What a host offers for building the wall; each `Err` says why not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostWalls {
    /// bubblewrap's version, or why it cannot run (and the fix).
    pub bubblewrap: Result<String, (String, String)>,
    /// The helper can make its own namespaces, or why not (and the fix).
    pub namespaces: Result<(), (String, String)>,
    pub landlock: Result<u32, String>,
    /// The helper is missing: no engine at all.
    pub helper_missing: Option<String>,
}

/// What the wall shows and leaves out for this workspace, known before a command runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Gaps {
    /// Files linked from outside the workspace that bubblewrap keeps read-only.
    pub pinned: usize,
    /// Not every such file could be found or pinned.
    pub links_incomplete: bool,
    /// Folders hidden whole (the homes, /mnt, /media...).
    pub private: Vec<String>,
    /// What comes back read-only inside them (project, toolchains, `PATH`, readablePaths).
    pub visible: Vec<String>,
    /// Credential paths and Paddock folders masked inside what is visible.
    pub masked: usize,
    /// Host sockets masked by path.
    pub sockets: usize,
    /// git's configuration is shown without its credentials.
    pub git_config: bool,
    /// Paths asked to be readable that are not, with why.
    pub refused: Vec<String>,
}

/// The engine this config gets on a host with `walls`, strongest first within the limit.
pub fn choose(config: &SandboxConfig, walls: &HostWalls) -> Option<Engine> {
    if !config.enabled || walls.helper_missing.is_some() {
        return None;
    }
    let limit = config.strongest.unwrap_or(Engine::Bubblewrap);
    let allowed = |e: Engine| rank(e) <= rank(limit);
    [
        (Engine::Bubblewrap, walls.bubblewrap.is_ok()),
        (Engine::Namespaces, walls.namespaces.is_ok()),
        (Engine::Landlock, walls.landlock.is_ok()),
    ]
    .into_iter()
    .find(|(e, available)| *available && allowed(*e))
    .map(|(e, _)| e)
}

fn rank(e: Engine) -> u8 {
    match e {
        Engine::Landlock => 0,
        Engine::Namespaces => 1,
        Engine::Bubblewrap => 2,
    }
}

/// The status for `engine` (from [`choose`]) with these settings.
pub fn assemble(
    config: &SandboxConfig,
    mode: WorkspaceMode,
    root: &Path,
    writable: &[PathBuf],
    walls: &HostWalls,
    engine: Option<Engine>,
    gaps: &Gaps,
) -> SandboxStatus {
    let abi = walls.landlock.as_ref().ok().copied();
    let (engine_info, protections) = match engine {
        _ if !config.enabled => (SandboxEngine::Disabled, off("the sandbox is turned off")),
        None => {
            let reason = why_none(walls);
            (
                SandboxEngine::None {
                    reason: reason.clone(),
                },
                off(&reason),
            )
        }
        Some(Engine::Bubblewrap) => (
            SandboxEngine::Bubblewrap {
                version: walls.bubblewrap.clone().unwrap_or_default(),
            },
            walled(config, abi, true, gaps),
        ),
        Some(Engine::Namespaces) => (SandboxEngine::Namespaces, walled(config, abi, false, gaps)),
        Some(Engine::Landlock) => (
            SandboxEngine::Landlock {
                abi: abi.unwrap_or_default(),
            },
            landlock_only(config, abi, walls),
        ),
    };
    let fully_confined = protections.iter().all(|p| {
        matches!(
            p.state,
            ProtectionState::Enforced | ProtectionState::Granted
        )
    });
    let bash_runs = engine.is_some() || config.allow_unconfined || !config.enabled;
    let writable_roots = if engine.is_some() {
        writable.iter().map(|p| p.display().to_string()).collect()
    } else {
        Vec::new()
    };
    let readable_roots = match engine {
        Some(Engine::Bubblewrap | Engine::Namespaces) => gaps.visible.clone(),
        _ => Vec::new(),
    };
    let summary = summarize(&engine_info, &protections, bash_runs);
    SandboxStatus {
        engines: engines::checks(walls),
        readable_roots,
        workspace_mode: mode,
        workspace_root: root.display().to_string(),
        engine: engine_info,
        protections,
        writable_roots,
        fully_confined,
        bash_runs,
        summary,
    }
}

fn why_none(walls: &HostWalls) -> String {
    if let Some(missing) = &walls.helper_missing {
        return missing.clone();
    }
    let bwrap = walls
        .bubblewrap
        .as_ref()
        .err()
        .map(|(why, _)| why.clone())
        .unwrap_or_default();
    let landlock = walls.landlock.as_ref().err().cloned().unwrap_or_default();
    format!("{bwrap}; no user namespaces; {landlock}")
}

fn p(kind: ProtectionKind, state: ProtectionState, detail: &str, fix: Option<&str>) -> Protection {
    Protection {
        kind,
        state,
        detail: detail.to_owned(),
        fix: fix.map(str::to_owned),
    }
}

/// Every protection absent, for the same reason.
fn off(reason: &str) -> Vec<Protection> {
    use ProtectionKind::*;
    [Writes, Secrets, Sockets, Network, Lifetime, Terminal]
        .into_iter()
        .map(|kind| p(kind, ProtectionState::Absent, reason, None))
        .collect()
}

const INSTALL_BWRAP: &str = "install bubblewrap (apt install bubblewrap) and allow \
                             unprivileged user namespaces";

/// `how` is what isolates the command; `namespace`: whether it has a network of its own, which
/// an allow-list needs (the proxy must be its only way out).
fn network(config: &SandboxConfig, how: &str, namespace: bool) -> Protection {
    if let (false, Some(rules)) = (config.bash_network, config.network_rules) {
        let (state, detail) = if namespace {
            (
                ProtectionState::Enforced,
                format!(
                    "an allow-list through Paddock's proxy ({rules} host rule{}): the only way \
                     out of {how}; names resolved by the proxy, private addresses refused",
                    if rules == 1 { "" } else { "s" }
                ),
            )
        } else {
            (
                ProtectionState::Enforced,
                format!(
                    "none: the allow-list needs a network namespace (bubblewrap or the \
                     helper's), so bash has no network here ({how})"
                ),
            )
        };
        return p(ProtectionKind::Network, state, &detail, None);
    }
    if config.bash_network {
        p(
            ProtectionKind::Network,
            ProtectionState::Granted,
            "allowed by the project (\"bashNetwork\": true)",
            None,
        )
    } else {
        p(
            ProtectionKind::Network,
            ProtectionState::Enforced,
            how,
            None,
        )
    }
}

/// Bubblewrap or the helper's namespaces: the mount and PID namespaces do most of it.
fn walled(
    config: &SandboxConfig,
    abi: Option<u32>,
    bubblewrap: bool,
    gaps: &Gaps,
) -> Vec<Protection> {
    use ProtectionKind::*;
    use ProtectionState::*;
    let writes = match (bubblewrap, abi) {
        (true, _) if gaps.links_incomplete => p(
            Writes,
            Partial,
            "read-only everywhere but the workspace and its TMPDIR; some files hard-linked \
             from outside the workspace could not all be pinned",
            Some("break the hard links (copy the files) or keep them out of the workspace"),
        ),
        (true, _) => p(
            Writes,
            Enforced,
            &format!(
                "read-only everywhere but the workspace and its TMPDIR (.git and .paddock \
                 read-only too; no chmod or timestamps outside); every repository's config, \
                 hooks and files other programs run (.envrc, editor tasks) read-only, and \
                 what a command adds there held for your approval{}",
                if gaps.pinned > 0 {
                    format!(
                        "; {} file(s) linked from outside kept read-only",
                        gaps.pinned
                    )
                } else {
                    String::new()
                }
            ),
            None,
        ),
        (false, Some(_)) => p(
            Writes,
            Partial,
            "Landlock: writes only in the workspace and its TMPDIR (.git and .paddock \
             read-only); permissions and timestamps outside, and files hard-linked from \
             outside, are not covered",
            Some(INSTALL_BWRAP),
        ),
        (false, None) => p(
            Writes,
            Absent,
            "no Landlock on this kernel: writes are not confined",
            Some("use Linux 5.13 or later with Landlock enabled, or install bubblewrap"),
        ),
    };
    let path_sockets = format!(
        "/run, /tmp, /var/tmp and /dev/shm emptied and the homes hidden (D-Bus, ssh-agent, \
         X11, docker, agents' sockets){}",
        match gaps.sockets {
            0 => String::new(),
            n => format!("; {n} other host socket(s) masked by path"),
        }
    );
    let sockets = if config.bash_network && abi.is_none_or(|a| a < LANDLOCK_SCOPE_ABI) {
        p(
            Sockets,
            Partial,
            &format!(
                "{path_sockets}; abstract Unix sockets stay reachable while bash has the network"
            ),
            Some("Linux 6.12 or later (Landlock ABI 6) scopes them"),
        )
    } else {
        p(
            Sockets,
            Enforced,
            &format!("{path_sockets}; abstract Unix sockets cut off"),
            None,
        )
    };
    vec![
        writes,
        p(Secrets, Enforced, &secrets_detail(gaps), None),
        sockets,
        network(config, "a private network namespace (loopback only)", true),
        p(
            Lifetime,
            Enforced,
            "a PID namespace: everything the command starts ends with it",
            None,
        ),
        p(
            Terminal,
            Enforced,
            "a new session without a terminal; TIOCSTI denied",
            None,
        ),
    ]
}

/// What bash can read: default-deny for people's files, and what came back.
fn secrets_detail(gaps: &Gaps) -> String {
    let hidden = if gaps.private.is_empty() {
        "the homes".to_owned()
    } else {
        gaps.private.join(", ")
    };
    let mut text = format!("{hidden} hidden");
    if gaps.visible.is_empty() {
        text.push_str("; nothing in them readable");
    } else {
        text.push_str(&format!(
            "; readable in them (read-only): {}",
            listed(&gaps.visible, 8)
        ));
    }
    if gaps.git_config {
        text.push_str("; git's config without credential helpers or tokens");
    }
    text.push_str(&format!(
        "; {} credential or Paddock path(s) masked inside what is visible; the kernel \
         keyring cut off",
        gaps.masked
    ));
    if !gaps.refused.is_empty() {
        text.push_str(&format!("; not made readable: {}", gaps.refused.join("; ")));
    }
    text
}

/// Up to `max` items, then how many more.
fn listed(items: &[String], max: usize) -> String {
    let mut text = items
        .iter()
        .take(max)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > max {
        text.push_str(&format!(" and {} more", items.len() - max));
    }
    text
}

/// Landlock, seccomp and the reaper only: no namespaces here.
fn landlock_only(config: &SandboxConfig, abi: Option<u32>, walls: &HostWalls) -> Vec<Protection> {
    use ProtectionKind::*;
    use ProtectionState::*;
    let fix = walls
        .bubblewrap
        .as_ref()
        .err()
        .map_or(INSTALL_BWRAP.to_owned(), |(_, fix)| fix.clone());
    let scoped = abi.is_some_and(|a| a >= LANDLOCK_SCOPE_ABI);
    vec![
        p(
            Writes,
            Partial,
            "Landlock: writes only in the workspace and its TMPDIR; .git and .paddock, \
             permissions and timestamps outside, and hard-linked files are not covered",
            Some(&fix),
        ),
        p(
            Secrets,
            Absent,
            "bash can read your files (~/.ssh, cloud credentials, other projects)",
            Some(&fix),
        ),
        p(
            Sockets,
            if scoped { Partial } else { Absent },
            if scoped {
                "abstract sockets scoped; path sockets (D-Bus, ssh-agent, docker) reachable"
            } else {
                "host sockets (D-Bus, ssh-agent, X11, docker) reachable"
            },
            Some(&fix),
        ),
        network(
            config,
            "seccomp: only Unix sockets can be made (TCP, UDP, IPv6, raw refused)",
            false,
        ),
        p(
            Lifetime,
            Partial,
            "a reaper ends everything the command starts, unless Paddock itself is killed",
            Some(&fix),
        ),
        p(
            Terminal,
            Enforced,
            "a new session without a terminal; TIOCSTI denied",
            None,
        ),
    ]
}

fn summarize(engine: &SandboxEngine, protections: &[Protection], bash_runs: bool) -> String {
    let name = match engine {
        SandboxEngine::Bubblewrap { version } => format!("bubblewrap {version}"),
        SandboxEngine::Namespaces => "Paddock's namespaces".to_owned(),
        SandboxEngine::Landlock { abi } => format!("Landlock ABI {abi} only"),
        SandboxEngine::None { reason } => format!("no sandbox ({reason})"),
        SandboxEngine::Disabled => "sandbox turned off".to_owned(),
    };
    let missing: Vec<&str> = protections
        .iter()
        .filter(|p| matches!(p.state, ProtectionState::Partial | ProtectionState::Absent))
        .map(|p| p.kind.label())
        .collect();
    let mut text = if matches!(engine, SandboxEngine::None { .. } | SandboxEngine::Disabled) {
        name
    } else if missing.is_empty() {
        format!("{name}: every protection enforced")
    } else {
        format!("{name}: not fully enforced: {}", missing.join(", "))
    };
    if !bash_runs {
        text.push_str("; bash refused until unconfined bash is allowed in settings");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walls(bwrap: bool, ns: bool, landlock: bool) -> HostWalls {
        HostWalls {
            bubblewrap: if bwrap {
                Ok("0.8.0".into())
            } else {
                Err(("bubblewrap is not installed".into(), "install it".into()))
            },
            namespaces: if ns {
                Ok(())
            } else {
                Err(("no userns".into(), String::new()))
            },
            landlock: if landlock {
                Ok(7)
            } else {
                Err("no Landlock".into())
            },
            helper_missing: None,
        }
    }

    fn status(config: &SandboxConfig, w: &HostWalls) -> SandboxStatus {
        let root = Path::new("/w");
        let writable = [root.to_path_buf(), PathBuf::from("/t")];
        let engine = choose(config, w);
        assemble(
            config,
            WorkspaceMode::Project,
            root,
            &writable,
            w,
            engine,
            &Gaps::default(),
        )
    }

    fn state(s: &SandboxStatus, kind: ProtectionKind) -> ProtectionState {
        s.protection(kind).unwrap().state
    }

    #[test]
    fn the_strongest_wall_wins_and_enforces_everything() {
        let s = status(&SandboxConfig::default(), &walls(true, true, true));
        assert!(matches!(s.engine, SandboxEngine::Bubblewrap { .. }));
        assert!(s.fully_confined && s.bash_runs);
        assert_eq!(s.writable_roots, ["/w", "/t"]);
        assert_eq!(s.summary, "bubblewrap 0.8.0: every protection enforced");
    }

    /// Every engine is listed with why it does not work here and its fix, so that doctor
    /// and the Sandbox screen say why the one in use was chosen.
    #[test]
    fn every_engine_says_why_not() {
        let s = status(&SandboxConfig::default(), &walls(false, false, true));
        let names: Vec<&str> = s.engines.iter().map(|e| e.engine.as_str()).collect();
        assert_eq!(names, ["bubblewrap", "namespaces", "landlock"]);
        assert!(!s.engines[0].works && !s.engines[1].works && s.engines[2].works);
        assert_eq!(s.engines[0].fix.as_deref(), Some("install it"));
        assert_eq!(s.engines[1].why, "no userns");
        assert_eq!(s.engines[1].fix, None, "an empty fix is none");
        let s = status(&SandboxConfig::default(), &walls(true, true, false));
        assert!(s.engines[2].fix.as_deref().unwrap().contains("Landlock"));
    }

    #[test]
    fn each_fallback_says_what_it_lacks() {
        let s = status(&SandboxConfig::default(), &walls(false, true, true));
        assert_eq!(s.engine, SandboxEngine::Namespaces);
        assert_eq!(state(&s, ProtectionKind::Writes), ProtectionState::Partial);
        assert_eq!(
            state(&s, ProtectionKind::Secrets),
            ProtectionState::Enforced
        );
        assert!(!s.fully_confined && s.bash_runs);

        let s = status(&SandboxConfig::default(), &walls(false, false, true));
        assert_eq!(s.engine, SandboxEngine::Landlock { abi: 7 });
        assert_eq!(state(&s, ProtectionKind::Secrets), ProtectionState::Absent);
        assert_eq!(
            state(&s, ProtectionKind::Network),
            ProtectionState::Enforced
        );
        assert_eq!(
            s.protection(ProtectionKind::Secrets)
                .unwrap()
                .fix
                .as_deref(),
            Some("install it")
        );
        assert!(
            s.summary.contains("not fully enforced: writes, secrets"),
            "{}",
            s.summary
        );

        // A limit forces a weaker engine even where a stronger one exists.
        let limited = SandboxConfig {
            strongest: Some(Engine::Landlock),
            ..SandboxConfig::default()
        };
        let s = status(&limited, &walls(true, true, true));
        assert!(matches!(s.engine, SandboxEngine::Landlock { .. }));
    }

    #[test]
    fn no_wall_refuses_bash_unless_accepted() {
        let s = status(&SandboxConfig::default(), &walls(false, false, false));
        assert!(matches!(s.engine, SandboxEngine::None { .. }));
        assert!(!s.bash_runs && !s.fully_confined && s.writable_roots.is_empty());
        assert!(s.summary.contains("bash refused"), "{}", s.summary);
        let accepting = SandboxConfig {
            allow_unconfined: true,
            ..SandboxConfig::default()
        };
        assert!(status(&accepting, &walls(false, false, false)).bash_runs);
    }

    #[test]
    fn a_granted_network_is_granted_and_scoping_depends_on_the_kernel() {
        let granted = SandboxConfig {
            bash_network: true,
            ..SandboxConfig::default()
        };
        let s = status(&granted, &walls(true, true, true));
        assert_eq!(state(&s, ProtectionKind::Network), ProtectionState::Granted);
        assert_eq!(
            state(&s, ProtectionKind::Sockets),
            ProtectionState::Enforced
        );
        let mut old = walls(true, true, true);
        old.landlock = Ok(4);
        let s = status(&granted, &old);
        assert_eq!(state(&s, ProtectionKind::Sockets), ProtectionState::Partial);
    }

    #[test]
    fn turning_the_sandbox_off_is_consent() {
        let off = SandboxConfig {
            enabled: false,
            ..SandboxConfig::default()
        };
        let s = status(&off, &walls(true, true, true));
        assert_eq!(s.engine, SandboxEngine::Disabled);
        assert!(!s.fully_confined && s.bash_runs);
        assert!(s.summary.starts_with("sandbox turned off"));
    }
}
