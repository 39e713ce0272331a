//! What a confined command can see of the host. Read access is default-deny for people's
//! files: every home (and /mnt, /media, /srv) is replaced by an empty folder, and only what
//! work needs comes back read-only — the project, toolchains and their caches, the folders
//! on `PATH`, the user's `readablePaths`, git's configuration without credentials. Masks go
//! last: credentials inside what came back, Paddock's own folders, the project's
//! `hiddenPaths`, and every host socket still in view.

use std::path::{Path, PathBuf};

use crate::SandboxConfig;
use crate::policy::{EMPTIED, HIDDEN_IN_HOME, Overlay, PRIVATE_ROOTS, outermost};

/// Toolchain homes: the variable that moves one, and where it is under the home otherwise.
const TOOLCHAINS: &[(&str, Option<&str>)] = &[
    ("CARGO_HOME", Some(".cargo")),
    ("RUSTUP_HOME", Some(".rustup")),
    ("NVM_DIR", Some(".nvm")),
    ("PYENV_ROOT", Some(".pyenv")),
    ("GOPATH", Some("go")),
    ("GOROOT", None),
    ("JAVA_HOME", None),
    ("VOLTA_HOME", Some(".volta")),
    ("BUN_INSTALL", Some(".bun")),
    ("DENO_INSTALL", Some(".deno")),
    ("PNPM_HOME", Some(".local/share/pnpm")),
    ("SDKMAN_DIR", Some(".sdkman")),
    ("ASDF_DATA_DIR", Some(".asdf")),
    ("RBENV_ROOT", Some(".rbenv")),
];

/// Levels below a fence walked to reach the paths shown inside it.
const MAX_FENCE_DEPTH: usize = 16;
/// Entries of one folder in a fence masked at most (each is a mount).
const MAX_FENCE_ENTRIES: usize = 4_096;

/// Caches and installs under the home that builds read (never their credential files, which
/// stay masked).
const CACHES_IN_HOME: &[&str] = &[
    ".npm",
    ".cache/pip",
    ".cache/go-build",
    ".cache/yarn",
    ".local/bin",
    ".local/lib",
    ".local/share/mise",
    ".m2/repository",
    ".gradle/caches",
    ".gradle/wrapper",
    ".elan",
    ".ghcup",
    ".opam",
    ".dotnet",
    ".nuget/packages",
];

/// A path asked to be visible and why it is not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub path: PathBuf,
    pub why: &'static str,
}

/// The host as one command sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct View {
    pub home: Option<PathBuf>,
    pub emptied: Vec<PathBuf>,
    pub private: Vec<PathBuf>,
    /// Paths inside `emptied`/`private` shown again read-only.
    pub visible: Vec<PathBuf>,
    pub overlays: Vec<Overlay>,
    /// Masks, applied last.
    pub hidden: Vec<PathBuf>,
    /// How many of `hidden` are host sockets.
    pub sockets: usize,
    pub refused: Vec<Refused>,
}

impl View {
    /// The view for a command writing `writable`, with `keep` (the helper, the resolver)
    /// shown wherever it is. Sockets are looked up only with `sockets`.
    pub fn compute(
        config: &SandboxConfig,
        writable: &[PathBuf],
        keep: &[PathBuf],
        sockets: bool,
    ) -> Self {
        let home = home_of(config).filter(|h| h.is_dir());
        let emptied: Vec<PathBuf> = EMPTIED
            .iter()
            .map(PathBuf::from)
            .filter(|d| d.is_dir())
            .collect();
        let private: Vec<PathBuf> = outermost(
            PRIVATE_ROOTS
                .iter()
                .map(PathBuf::from)
                .chain(home.clone())
                .filter(|d| d.is_dir())
                .collect(),
        )
        .into_iter()
        .filter(|p| !emptied.iter().any(|e| p.starts_with(e)))
        .collect();
        let own = own_dirs_in(config, home.as_deref());
        let mut view = Self {
            home: home.clone(),
            emptied,
            private,
            ..Self::default()
        };
        let candidates = config
            .readable
            .iter()
            .cloned()
            .chain(toolchains(home.as_deref()))
            .chain(path_dirs())
            .chain(keep.iter().cloned());
        for path in candidates {
            view.offer(path, &own, writable);
        }
        view.visible = outermost(std::mem::take(&mut view.visible));
        if let Some(home) = &home {
            view.overlays.extend(crate::gitconfig::overlay(home));
        }
        let shown_inside: Vec<PathBuf> = writable
            .iter()
            .chain(&config.readable)
            .chain(keep)
            .cloned()
            .collect();
        let fences = config
            .fenced
            .iter()
            .flat_map(|f| fence_masks(f, &shown_inside, 0));
        let mut masks: Vec<PathBuf> = home
            .iter()
            .flat_map(|h| HIDDEN_IN_HOME.iter().map(move |rel| h.join(rel)))
            .chain(own)
            .chain(config.hidden.iter().cloned())
            .chain(fences)
            .collect();
        masks.retain(|p| std::fs::symlink_metadata(p).is_ok() && view.shows(p, writable));
        let socket_masks: Vec<PathBuf> = if sockets {
            crate::sockets::host_sockets()
                .into_iter()
                .filter(|s| !writable.iter().any(|w| s.starts_with(w)))
                .filter(|s| view.shows(s, writable))
                .collect()
        } else {
            Vec::new()
        };
        view.sockets = socket_masks.len();
        masks.extend(socket_masks);
        view.hidden = outermost(masks);
        view
    }

    /// Takes `path` as visible if it exists, needs showing, and shows nothing it must not.
    fn offer(&mut self, path: PathBuf, own: &[PathBuf], writable: &[PathBuf]) {
        if !path.is_absolute() || std::fs::symlink_metadata(&path).is_err() {
            return;
        }
        let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        let whole = |p: &Path| {
            p == Path::new("/")
                || self
                    .private
                    .iter()
                    .chain(&self.emptied)
                    .any(|r| r.starts_with(p))
                || self.home.as_deref().is_some_and(|h| h.starts_with(p))
        };
        let why = if whole(&path) || whole(&real) {
            Some("it holds a whole home or system folder")
        } else if own
            .iter()
            .any(|o| path.starts_with(o) || real.starts_with(o))
        {
            Some("it holds Paddock's own data")
        } else {
            None
        };
        if let Some(why) = why {
            self.refused.push(Refused { path, why });
            return;
        }
        let hidden_now = |p: &Path| {
            self.private
                .iter()
                .chain(&self.emptied)
                .any(|r| p.starts_with(r))
        };
        if hidden_now(&path) && !writable.iter().any(|w| path.starts_with(w)) {
            self.visible.push(path);
        }
    }

    /// Whether `path` is in view behind the wall (before the masks).
    pub fn shows(&self, path: &Path, writable: &[PathBuf]) -> bool {
        let hidden = self
            .private
            .iter()
            .chain(&self.emptied)
            .any(|r| path.starts_with(r));
        let back = self
            .visible
            .iter()
            .chain(writable)
            .chain(self.overlays.iter().map(|o| &o.target))
            .any(|v| path.starts_with(v));
        // An ancestor of a folder the command works in stays: masking it would hide that.
        let holds_work = writable
            .iter()
            .chain(&self.visible)
            .any(|w| w.starts_with(path) && w != path);
        (!hidden || back) && !holds_work
    }
}

/// The masks that hide `fence` except the paths of `shown` inside it: the fence whole when
/// none is, else each entry not on the way to one, down to those paths. The masks do not
/// depend on whether the fence lies in a home the wall empties anyway.
fn fence_masks(fence: &Path, shown: &[PathBuf], depth: usize) -> Vec<PathBuf> {
    let inside: Vec<&PathBuf> = shown.iter().filter(|p| p.starts_with(fence)).collect();
    if inside.is_empty() {
        return vec![fence.to_path_buf()];
    }
    if inside.iter().any(|p| p.as_path() == fence) || depth >= MAX_FENCE_DEPTH {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir(fence) else {
        return Vec::new();
    };
    entries
        .flatten()
        .take(MAX_FENCE_ENTRIES)
        .flat_map(|e| fence_masks(&e.path(), shown, depth + 1))
        .collect()
}

/// Folders no workspace may hold: the homes and system folders the wall empties, the home's
/// configuration and data folders, credentials, Paddock's own folders.
pub fn private_folders(config: &SandboxConfig) -> Vec<PathBuf> {
    let home = home_of(config);
    let mut out: Vec<PathBuf> = PRIVATE_ROOTS
        .iter()
        .chain(EMPTIED)
        .map(PathBuf::from)
        .chain(own_dirs_in(config, home.as_deref()))
        .collect();
    if let Some(home) = &home {
        out.push(home.clone());
        out.extend(
            [".config", ".local/share"]
                .iter()
                .chain(HIDDEN_IN_HOME)
                .map(|rel| home.join(rel)),
        );
    }
    out
}

/// Paddock's own folders (sessions, trust, settings): never visible inside any wall.
pub fn own_dirs(config: &SandboxConfig) -> Vec<PathBuf> {
    own_dirs_in(config, home_of(config).as_deref())
}

/// The home folder the wall hides: the configured one, else `$HOME`.
fn home_of(config: &SandboxConfig) -> Option<PathBuf> {
    config
        .home
        .clone()
        .or_else(|| std::env::var_os("HOME").map(PathBuf::from))
        .filter(|h| h.is_absolute())
}

fn own_dirs_in(config: &SandboxConfig, home: Option<&Path>) -> Vec<PathBuf> {
    let defaults = [
        ".config/paddock",
        ".local/share/paddock",
        ".local/share/dev.paddock.app",
    ];
    config
        .own
        .iter()
        .cloned()
        .chain(home.into_iter().flat_map(|h| defaults.map(|d| h.join(d))))
        .collect()
}

/// Toolchain homes and build caches, where they are on this host.
fn toolchains(home: Option<&Path>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for (var, default) in TOOLCHAINS {
        match std::env::var_os(var).filter(|v| !v.is_empty()) {
            Some(v) => out.push(PathBuf::from(v)),
            None => out.extend(home.zip(*default).map(|(h, d)| h.join(d))),
        }
    }
    if let Some(home) = home {
        out.extend(CACHES_IN_HOME.iter().map(|rel| home.join(rel)));
    }
    out
}

/// The absolute folders on the host's `PATH`.
fn path_dirs() -> Vec<PathBuf> {
    std::env::var_os("PATH")
        .map(|p| {
            std::env::split_paths(&p)
                .filter(|d| d.is_absolute())
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(home: &Path) -> SandboxConfig {
        SandboxConfig {
            home: Some(home.to_path_buf()),
            ..SandboxConfig::default()
        }
    }

    #[test]
    fn a_fence_hides_everything_but_the_way_to_what_the_command_uses() {
        // The fence's own masks, whatever folder the test runs in (where the wall empties
        // that folder anyway, `compute` rightly drops masks inside it).
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let worktrees = base.join("opt/paddock-worktrees");
        for d in ["p1/mine/src", "p1/other", "p2/theirs"] {
            std::fs::create_dir_all(worktrees.join(d)).unwrap();
        }
        let agents = base.join("opt/paddock-agents/p1/claude");
        std::fs::create_dir_all(&agents).unwrap();
        let main = base.join("opt/project");
        std::fs::create_dir_all(main.join(".git/objects")).unwrap();
        std::fs::write(main.join(".env"), "TOKEN=x").unwrap();
        let config = SandboxConfig {
            home: Some(base.join("home")),
            fenced: vec![
                worktrees.clone(),
                agents.parent().unwrap().parent().unwrap().into(),
                main.clone(),
            ],
            readable: vec![main.join(".git")],
            ..SandboxConfig::default()
        };
        let writable = [worktrees.join("p1/mine")];
        let shown_inside: Vec<PathBuf> = writable.iter().chain(&config.readable).cloned().collect();
        let masks: Vec<PathBuf> = config
            .fenced
            .iter()
            .flat_map(|f| fence_masks(f, &shown_inside, 0))
            .collect();
        for hidden in [
            worktrees.join("p1/other"),
            worktrees.join("p2"),
            base.join("opt/paddock-agents"),
            main.join(".env"),
        ] {
            assert!(masks.contains(&hidden), "{hidden:?} not in {masks:?}");
        }
        for shown in [
            worktrees.join("p1/mine"),
            worktrees.join("p1"),
            main.join(".git"),
            main.clone(),
        ] {
            assert!(
                !masks.iter().any(|h| shown.starts_with(h)),
                "{shown:?} hidden: {:?}",
                masks
            );
        }
    }

    #[test]
    fn the_home_is_private_and_what_work_needs_comes_back() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().canonicalize().unwrap().join("home");
        for d in [
            ".npm/_cacache",
            ".ssh",
            ".cargo/bin",
            "notes",
            ".config/paddock",
        ] {
            std::fs::create_dir_all(home.join(d)).unwrap();
        }
        std::fs::write(home.join(".cargo/credentials.toml"), "t").unwrap();
        let mut c = config(&home);
        c.readable = vec![
            home.join("notes"),
            home.clone(),
            home.join(".config/paddock"),
        ];
        let view = View::compute(&c, &[], &[], false);
        assert!(
            view.private
                .iter()
                .chain(&view.emptied)
                .any(|p| home.starts_with(p)),
            "{view:?}"
        );
        assert!(view.visible.contains(&home.join(".npm")), "{view:?}");
        assert!(view.visible.contains(&home.join("notes")), "{view:?}");
        assert!(!view.visible.contains(&home.join(".ssh")));
        assert!(
            view.hidden.contains(&home.join(".cargo/credentials.toml"))
                || !view
                    .visible
                    .iter()
                    .any(|v| home.join(".cargo").starts_with(v)),
            "{view:?}"
        );
        let refused: Vec<&Path> = view.refused.iter().map(|r| r.path.as_path()).collect();
        assert_eq!(
            refused,
            [home.as_path(), home.join(".config/paddock").as_path()]
        );
        assert!(
            !view.hidden.contains(&home.join(".ssh")),
            "not in view: nothing to mask"
        );
    }

    #[test]
    fn masks_inside_the_workspace_apply() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().canonicalize().unwrap().join("home");
        let ws = home.join(".config");
        std::fs::create_dir_all(ws.join("gh")).unwrap();
        std::fs::create_dir_all(ws.join("paddock")).unwrap();
        let view = View::compute(&config(&home), std::slice::from_ref(&ws), &[], false);
        assert!(view.hidden.contains(&ws.join("gh")), "{view:?}");
        assert!(view.hidden.contains(&ws.join("paddock")), "{view:?}");
    }
}
