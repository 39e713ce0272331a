//! git during a call nobody looked at (issue 50, class 9): a rule-allowed git command runs
//! no program the same call wrote into a repository. A repository the call makes, a hooks
//! folder it adds, a `commondir` it redirects or a driver it configures would otherwise run
//! inside the call, before the hold that comes when it ends.
//!
//! Paddock writes a folder per call, read-only behind the wall: the list of the hooks and
//! configuration files found before the call, one script per hook name found (git's
//! `core.hooksPath` points there), and a `git` front, first on `PATH` and, behind walls that
//! mount, shown over `/usr/bin/git` and `/usr/local/bin/git`. Both hand over to the sandbox
//! helper (`paddock_sandbox::git_checks`), which runs the repository's hook or git itself only
//! when what names the program is the user's.

use std::ffi::OsString;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use paddock_sandbox::autorun::Surfaces;
use paddock_sandbox::git_checks::{FRONT_FLAG, HOOK_FLAG, identity, normal};
use paddock_sandbox::policy::Overlay;

use crate::process::TmpDir;

/// The hook names git runs (githooks(5)); only these get a script.
const HOOK_NAMES: &[&str] = &[
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-rebase",
    "post-checkout",
    "post-merge",
    "pre-push",
    "pre-receive",
    "update",
    "proc-receive",
    "post-receive",
    "post-update",
    "reference-transaction",
    "push-to-checkout",
    "pre-auto-gc",
    "post-rewrite",
    "sendemail-validate",
    "post-index-change",
];

/// Where a command finds git by its full path (and a rule matches it as `git`).
const GIT_PATHS: &[&str] = &["/usr/bin/git", "/usr/local/bin/git", "/bin/git"];

/// The file in the folder listing what was found before the call, one identity a line.
const TRUSTED_LIST: &str = ".trusted";
/// The file listing the hooks found before the call: identity, a tab, the path.
const HOOKS_LIST: &str = ".hooks";

/// Whether a call's git front also stands over git's own files (`/usr/bin/git`) behind the
/// wall these settings get here: only walls that mount can show it there. Elsewhere git by
/// its path runs past the front, and the argument rules ask for it
/// (`Rules::with_git_paths_unfronted`).
pub fn front_covers_git_paths(config: &paddock_sandbox::SandboxConfig) -> bool {
    use paddock_sandbox::Engine;
    let mounts = matches!(
        paddock_sandbox::engine(config),
        Some(Engine::Bubblewrap | Engine::Namespaces)
    );
    // A git whose exec-path `git` is the very file (a build with installed symlinks) gets
    // no front over it: its path is not covered.
    mounts && gits().iter().all(|g| g.shown_at.is_some())
}

/// The folder a call's git is pointed at. Folders are written once per distinct state
/// (what was found before the call) and kept for the life of this process (its temporary
/// folder is swept at the next start), so a call in an unchanged workspace writes nothing.
pub(crate) struct GitGate {
    folder: PathBuf,
    /// The front shown over each git found by its full path.
    overlays: Vec<Overlay>,
    /// Scripts were written (the sandbox helper and git were found).
    guarded: bool,
}

impl GitGate {
    /// The folder for a call whose workspace looked like `before` when it started (`None`:
    /// not scanned in full, so nothing is trusted).
    ///
    /// The repository holding the workspace (`root`) from outside is the user's too: its
    /// configuration and hooks are listed, for walls that cannot keep it read-only.
    pub(crate) fn prepare(before: Option<&Surfaces>, root: &Path) -> std::io::Result<Self> {
        let mut candidates = before.map(Surfaces::hook_candidates).unwrap_or_default();
        let mut configs = before.map(Surfaces::config_files).unwrap_or_default();
        if let Some(outer) = root.parent().and_then(outer_repository) {
            configs.push(outer.join("config"));
            candidates.extend(
                std::fs::read_dir(outer.join("hooks"))
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(|e| e.path()),
            );
        }
        // What the configurations include is the user's too when it was there before.
        let included: Vec<PathBuf> = configs
            .iter()
            .flat_map(|c| paddock_sandbox::git_checks::included_files(c).unwrap_or_default())
            .collect();
        let mut trusted: Vec<String> = candidates
            .iter()
            .chain(&configs)
            .chain(&included)
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| identity(&m))
            .collect();
        trusted.sort();
        trusted.dedup();
        let names = runnable_names(&candidates);
        let hooks = hook_lines(&candidates);
        let helper = paddock_sandbox::helper::default();
        let guarded = helper.is_some() && !gits().is_empty();
        let key = state_key(&[&trusted, &names, &hooks]);
        let folder = process_folder()?.join(format!("{key:016x}"));
        let gate = Self {
            overlays: if guarded {
                overlays_in(&folder)
            } else {
                Vec::new()
            },
            folder,
            guarded,
        };
        if gate.folder.is_dir() {
            return Ok(gate);
        }
        // Written beside, then renamed into place whole: a call never sees half a folder,
        // and two calls writing the same state both end with one.
        let draft = process_folder()?.join(format!(
            "draft-{}",
            DRAFTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&draft);
        let lists = Lists {
            trusted: &trusted,
            names: &names,
            hooks: &hooks,
        };
        write_folder(&draft, &gate.folder, &lists, helper)?;
        if std::fs::rename(&draft, &gate.folder).is_err() {
            let _ = std::fs::remove_dir_all(&draft);
            if !gate.folder.is_dir() {
                return Err(std::io::Error::other(
                    "the git folder could not be put in place",
                ));
            }
        }
        Ok(gate)
    }

    /// The folder, to be shown read-only behind the wall.
    pub(crate) fn folder(&self) -> &Path {
        &self.folder
    }

    /// The fronts shown over git's full paths, behind walls that mount.
    pub(crate) fn overlays(&self) -> &[Overlay] {
        &self.overlays
    }

    /// Adds to a command's environment git's settings for the call (programs off, hooks
    /// here) and the front first on `PATH`.
    pub(crate) fn set_env(&self, env: &mut Vec<(OsString, OsString)>) {
        if self.guarded
            && let Some((_, path)) = env.iter_mut().find(|(k, _)| k == "PATH")
        {
            let mut front = self.folder.join("bin").into_os_string();
            front.push(":");
            front.push(&*path);
            *path = front;
        }
        env.extend(
            paddock_sandbox::git_checks::call_git_env(&self.folder.join("hooks"))
                .into_iter()
                .map(|(k, v)| (k.into(), v.into())),
        );
    }
}

/// Numbers the drafts of this process's folders.
static DRAFTS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// This process's folder of git folders, made once.
fn process_folder() -> std::io::Result<&'static Path> {
    static FOLDER: OnceLock<Result<TmpDir, String>> = OnceLock::new();
    match FOLDER.get_or_init(|| TmpDir::fresh("-git").map_err(|e| e.to_string())) {
        Ok(dir) => Ok(&dir.path),
        Err(e) => Err(std::io::Error::other(e.clone())),
    }
}

/// Names a state: what was found and which hook scripts it needs.
fn state_key(parts: &[&[String]]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    parts.hash(&mut hasher);
    hasher.finish()
}

/// What a state's folder lists.
struct Lists<'a> {
    /// Identities of the hooks and configuration files found.
    trusted: &'a [String],
    /// git's hook names among them (a script each).
    names: &'a [String],
    /// Each hook found: its identity, a tab, its path (lexical, absolute).
    hooks: &'a [String],
}

/// `identity<TAB>path` of each runnable hook found; a path that is not text, or holds a
/// line end, is left out (that hook does not run in a command nobody approved).
fn hook_lines(candidates: &[PathBuf]) -> Vec<String> {
    let mut out: Vec<String> = candidates
        .iter()
        .filter_map(|p| {
            let meta = std::fs::metadata(p).ok()?;
            let path = normal(p);
            let text = path.to_str().filter(|t| !t.contains('\n'))?;
            Some(format!("{}\t{text}", identity(&meta)))
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The fronts of a folder at `folder`, shown over each git found by its full path.
fn overlays_in(folder: &Path) -> Vec<Overlay> {
    gits()
        .iter()
        .enumerate()
        .filter_map(|(i, git)| {
            Some(Overlay {
                source: folder.join(format!("front-{i}")),
                target: git.shown_at.clone()?,
            })
        })
        .collect()
}

/// Writes at `draft` the folder that will be at `folder`: the list, one script per hook
/// name and the fronts (none without the helper or git: git then finds no hook at all).
fn write_folder(
    draft: &Path,
    folder: &Path,
    lists: &Lists<'_>,
    helper: Option<&paddock_sandbox::HelperCommand>,
) -> std::io::Result<()> {
    std::fs::create_dir(draft)?;
    std::fs::create_dir(draft.join("hooks"))?;
    std::fs::create_dir(draft.join("bin"))?;
    let body = format!("{}\n", lists.trusted.join("\n"));
    write_file(&draft.join(TRUSTED_LIST), body.as_bytes(), 0o444)?;
    let body = format!("{}\n", lists.hooks.join("\n"));
    write_file(&draft.join(HOOKS_LIST), body.as_bytes(), 0o444)?;
    let (Some(helper), Some(first)) = (helper, gits().first()) else {
        return Ok(());
    };
    // The scripts name the list where it will be.
    let list = folder.join(TRUSTED_LIST);
    let start = |flag: &str, more: &[&Path], tail: &str| -> String {
        let mut words = vec![quoted(&helper.program.to_string_lossy())];
        words.extend(helper.args.iter().map(|a| quoted(&a.to_string_lossy())));
        words.push(flag.to_owned());
        words.extend(more.iter().map(|p| quoted(&p.to_string_lossy())));
        format!(
            "#!/bin/sh\n# Written by Paddock for a command nobody approved: see \
             paddock_sandbox::git_checks.\nexec {} -- {tail}\n",
            words.join(" ")
        )
    };
    let hooks_list = folder.join(HOOKS_LIST);
    for name in lists.names {
        let script = start(
            HOOK_FLAG,
            &[Path::new(name), &first.real, &hooks_list],
            ALL_ARGS,
        );
        write_file(&draft.join("hooks").join(name), script.as_bytes(), 0o555)?;
    }
    for (i, git) in gits().iter().enumerate() {
        let mirror = format!("exec-{i}");
        let front =
            |tail: &str| start(FRONT_FLAG, &[&git.real, &list, &folder.join(&mirror)], tail);
        write_mirror(
            &draft.join(&mirror),
            git,
            &front(ALL_ARGS),
            &front(DASHED_ARGS),
        )?;
        if i == 0 {
            write_file(&draft.join("bin/git"), front(ALL_ARGS).as_bytes(), 0o555)?;
        }
        if git.shown_at.is_some() {
            write_file(
                &draft.join(format!("front-{i}")),
                front(ALL_ARGS).as_bytes(),
                0o555,
            )?;
        }
    }
    Ok(())
}

/// A script's arguments handed on as they came.
const ALL_ARGS: &str = "\"$@\"";
/// A dashed command's (`git-add`) arguments: its name without `git-`, then the rest.
const DASHED_ARGS: &str = "\"${0##*/git-}\" \"$@\"";
/// The script in a mirror that every dashed form of git itself links to.
const DASHED: &str = ".dashed";

/// Writes at `dir` the folder git takes its commands from during the call: its exec-path
/// seen through links, except git itself (in every name it has there, `git-add` and the
/// like), which is the front. git puts this folder first on `PATH` for what it starts.
fn write_mirror(dir: &Path, git: &Git, front: &str, dashed: &str) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    std::fs::create_dir(dir)?;
    write_file(&dir.join("git"), front.as_bytes(), 0o555)?;
    write_file(&dir.join(DASHED), dashed.as_bytes(), 0o555)?;
    let real = std::fs::metadata(&git.real)?;
    for entry in std::fs::read_dir(&git.exec_dir)?.flatten() {
        let name = entry.file_name();
        if name == "git" {
            continue;
        }
        let path = entry.path();
        let is_git =
            std::fs::metadata(&path).is_ok_and(|m| m.dev() == real.dev() && m.ino() == real.ino());
        let target = if is_git { PathBuf::from(DASHED) } else { path };
        std::os::unix::fs::symlink(target, dir.join(name))?;
    }
    Ok(())
}

/// A git this host has: where a command may call it by full path (when that is not the
/// program itself), and the program that runs.
struct Git {
    shown_at: Option<PathBuf>,
    real: PathBuf,
    /// Its exec-path: the folder it takes its commands from.
    exec_dir: PathBuf,
}

/// The gits on this host, the one first on `PATH` first; looked up once.
fn gits() -> &'static [Git] {
    static GITS: OnceLock<Vec<Git>> = OnceLock::new();
    GITS.get_or_init(|| {
        let first_on_path = std::env::var_os("PATH").and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join("git"))
                .find(|g| g.is_file())
        });
        let mut out: Vec<Git> = Vec::new();
        for path in first_on_path
            .into_iter()
            .chain(GIT_PATHS.iter().map(PathBuf::from))
        {
            let Some((canonical, (exec_dir, real))) = std::fs::canonicalize(&path)
                .ok()
                .and_then(|c| program_of(&c).map(|r| (c, r)))
            else {
                continue;
            };
            let shown_at = (canonical != real).then_some(canonical);
            if !out.iter().any(|g| g.real == real && g.shown_at == shown_at) {
                out.push(Git {
                    shown_at,
                    real,
                    exec_dir,
                });
            }
        }
        out
    })
}

/// git at `path`'s exec-path, and the program it runs as: the `git` there, where the front
/// cannot be shown over it.
fn program_of(path: &Path) -> Option<(PathBuf, PathBuf)> {
    let out = std::process::Command::new(path)
        .arg("--exec-path")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let dir = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim_end_matches('\n'));
    let real = std::fs::canonicalize(dir.join("git")).ok()?;
    std::fs::metadata(&real)
        .is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
        .then_some((dir, real))
}

/// The folder holding the configuration of the repository `dir` lies in: the nearest
/// `.git` above it (a folder, or a file naming one), through its `commondir`.
fn outer_repository(dir: &Path) -> Option<PathBuf> {
    let dot_git = dir
        .ancestors()
        .map(|a| a.join(".git"))
        .find(|g| g.exists())?;
    let git_dir = if dot_git.is_dir() {
        dot_git
    } else {
        let text = std::fs::read_to_string(&dot_git).ok()?;
        let named = PathBuf::from(text.strip_prefix("gitdir:")?.trim());
        dot_git.parent()?.join(named)
    };
    Some(match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(common) => git_dir.join(common.trim()),
        Err(_) => git_dir,
    })
}

/// git's hook names among `candidates`, once each.
fn runnable_names(candidates: &[PathBuf]) -> Vec<String> {
    let mut names: Vec<String> = candidates
        .iter()
        .filter_map(|p| p.file_name()?.to_str())
        .filter(|n| HOOK_NAMES.contains(n))
        .map(str::to_owned)
        .collect();
    names.sort();
    names.dedup();
    names
}

fn write_file(path: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)?;
    file.write_all(bytes)
}

/// `text` as one single-quoted shell word.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    use super::*;

    /// The identity Paddock writes is the one the helper reads back.
    #[test]
    fn the_identity_matches_what_stat_prints() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pre-commit");
        std::fs::write(&file, "#!/bin/sh\n").unwrap();
        let out = Command::new("stat")
            .args(["-L", "-c", "%d:%i:%.9Z", "--"])
            .arg(&file)
            .output()
            .unwrap();
        let printed = String::from_utf8(out.stdout).unwrap();
        assert_eq!(identity(&std::fs::metadata(&file).unwrap()), printed.trim());
    }

    /// Hooks and configuration of the workspace's repositories are listed; nothing scanned
    /// means nothing trusted; an unchanged workspace gets the same folder, a changed one
    /// another.
    #[test]
    fn the_folder_lists_what_was_found() {
        let ws = tempfile::tempdir().unwrap();
        let hooks = ws.path().join(".git/hooks");
        std::fs::create_dir_all(&hooks).unwrap();
        std::fs::write(ws.path().join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(ws.path().join(".git/config"), "[core]\n").unwrap();
        for name in ["pre-commit", "helper"] {
            std::fs::write(hooks.join(name), "#!/bin/sh\n").unwrap();
        }
        let before = Surfaces::scan(ws.path(), &[]);
        let gate = GitGate::prepare(Some(&before), ws.path()).unwrap();
        let list = std::fs::read_to_string(gate.folder().join(TRUSTED_LIST)).unwrap();
        assert_eq!(list.lines().count(), 3, "{list}");
        assert_eq!(runnable_names(&before.hook_candidates()), ["pre-commit"]);
        let none = GitGate::prepare(None, ws.path()).unwrap();
        let empty = std::fs::read_to_string(none.folder().join(TRUSTED_LIST)).unwrap();
        assert_eq!(empty.trim(), "");
        assert!(!none.folder().join("hooks/pre-commit").exists());
        assert_ne!(gate.folder(), none.folder());
        let again = GitGate::prepare(Some(&Surfaces::scan(ws.path(), &[])), ws.path()).unwrap();
        assert_eq!(gate.folder(), again.folder());
        std::fs::write(hooks.join("pre-commit"), "#!/bin/sh\nexit 0\n").unwrap();
        let changed = GitGate::prepare(Some(&Surfaces::scan(ws.path(), &[])), ws.path()).unwrap();
        assert_ne!(
            gate.folder(),
            changed.folder(),
            "a rewritten hook is another state"
        );
    }
}
