//! git behind the wall during a call nobody looked at (issue 50, class 9): what the helper
//! does when a call's `git` or one of its hooks starts. A rule that allows `git commit`
//! allows git, not a program the same call wrote into a repository (a hook, a filter, diff
//! or merge driver, an alias, an include).
//!
//! A file counts as the user's when it was found before the call (its device, inode and
//! change time, which a rewrite or a new file changes) or when it lies on a read-only mount
//! behind the wall (the call could not have written it). git runs a hook only when the hook
//! is the user's, and runs at all only when the repository's configuration is the user's or
//! names no program.

use std::ffi::{OsStr, OsString};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::autorun::first_active_key;

mod named;
mod settings;

pub use named::included_files;
pub use settings::call_git_env;

/// The helper's first argument for a call's `git`: `--git-front REAL LIST EXEC -- ARGS`
/// (`EXEC`: the folder git is to take its commands from, where its own `git` is this front).
pub const FRONT_FLAG: &str = "--git-front";
/// The helper's first argument for a hook: `--git-hook NAME REAL LIST -- ARGS`.
pub const HOOK_FLAG: &str = "--git-hook";
/// Bytes of a configuration file read at most; a larger one is not the user's.
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;
/// git's exit code for a fatal error.
const EXIT_FATAL: i32 = 128;

/// git's options before its command that change which repository it works in, and
/// whether each takes the next argument as its value.
const REPOSITORY_OPTIONS: &[(&str, bool)] = &[
    ("-C", true),
    ("-c", true),
    ("--git-dir", true),
    ("--work-tree", true),
    ("--namespace", true),
    ("--config-env", true),
    ("--bare", false),
];
/// git's commands that need no repository where they start: they run where git can name
/// none (the remote end of a fetch or push names its repository as an argument).
const NO_REPOSITORY: &[&str] = &[
    "init",
    "clone",
    "version",
    "help",
    "upload-pack",
    "receive-pack",
    "upload-archive",
];
/// git's commands that serve the other end of a fetch or push: their repository is the
/// one they name.
const REMOTE_END: &[&str] = &["upload-pack", "receive-pack", "upload-archive"];
/// git's commands that go on with a stopped rebase, cherry-pick or revert from the list of
/// steps it left in the repository.
const SEQUENCER: &[&str] = &["rebase", "cherry-pick", "revert"];
/// The lists of steps those leave, in the repository's folder.
const STEP_LISTS: &[&str] = &["rebase-merge/git-rebase-todo", "sequencer/todo"];

/// Options before git's command that take no value and change no repository.
const OTHER_OPTIONS: &[&str] = &[
    "--version",
    "--help",
    "-v",
    "-h",
    "--exec-path",
    "--html-path",
    "--man-path",
    "--info-path",
    "-p",
    "--paginate",
    "-P",
    "--no-pager",
    "--no-replace-objects",
    "--literal-pathspecs",
    "--glob-pathspecs",
    "--noglob-pathspecs",
    "--icase-pathspecs",
    "--no-optional-locks",
    "--no-advice",
    "--no-lazy-fetch",
];

/// `device:inode:ctime.nanoseconds` of a file (links followed), one line of the list of
/// files found before a call.
pub fn identity(meta: &std::fs::Metadata) -> String {
    format!(
        "{}:{}:{}.{:09}",
        meta.dev(),
        meta.ino(),
        meta.ctime(),
        meta.ctime_nsec()
    )
}

/// Whether `path` is the user's: found before the call (in `list`) or read-only here.
fn users(path: &Path, list: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    let id = identity(&meta);
    let listed = std::fs::read_to_string(list).is_ok_and(|l| l.lines().any(|line| line == id));
    listed
        || rustix::fs::statvfs(path)
            .is_ok_and(|v| v.f_flag.contains(rustix::fs::StatVfsMountFlags::RDONLY))
}

/// The helper as a call's `git`. Returns only when git could not be started.
///
/// git runs with `GIT_EXEC_PATH` set to `EXEC`: git puts that folder first on `PATH` for
/// what it starts (hooks, aliases, submodules, its own commands), so a git started by git
/// comes back here instead of reaching the program unchecked.
pub fn front(args: &[&OsStr]) -> i32 {
    let Some((real, list, exec, git_args)) =
        split(args, 3).map(|(head, rest)| (head[0], head[1], head[2], rest))
    else {
        eprintln!("paddock git front: usage: {FRONT_FLAG} REAL LIST EXEC -- ARGS");
        return 2;
    };
    let (real, list) = (Path::new(real), Path::new(list));
    if let Some(refusal) = refusal(real, list, git_args) {
        eprintln!("{refusal}");
        return EXIT_FATAL;
    }
    let mut git = Command::new(real);
    git.args(git_args).env("GIT_EXEC_PATH", exec);
    // The other end of a local fetch or push starts without the call's settings (git
    // clears them for it): its hooks go through the gate all the same.
    if remote_end_of(git_args) {
        let hooks = list.parent().map_or_else(PathBuf::new, |f| f.join("hooks"));
        git.envs(call_git_env(&hooks));
    }
    let e = git.exec();
    eprintln!("paddock git front: could not start {}: {e}", real.display());
    EXIT_FATAL
}

/// Whether `git_args` run the other end of a fetch or push.
fn remote_end_of(git_args: &[&OsStr]) -> bool {
    repository_options(git_args)
        .ok()
        .and_then(|(_, command)| command)
        .is_some_and(|c| REMOTE_END.iter().any(|n| OsStr::new(n) == c))
}

/// Why git may not run with `git_args`: its repository's configuration was written during
/// the call and names a program.
fn refusal(real: &Path, list: &Path, git_args: &[&OsStr]) -> Option<String> {
    let texts: Vec<std::borrow::Cow<'_, str>> =
        git_args.iter().map(|a| a.to_string_lossy()).collect();
    let words: Vec<Option<&str>> = texts.iter().map(|t| Some(t.as_ref())).collect();
    if let Some(found) = paddock_rules::git::program_argument(&words) {
        return Some(format!(
            "paddock: git was not run: {}; nobody approved this command",
            found.why
        ));
    }
    let (options, command) = match repository_options(git_args) {
        Ok(found) => found,
        Err(why) => return Some(why),
    };
    let after = command
        .as_ref()
        .and_then(|c| git_args.iter().position(|a| *a == c.as_os_str()))
        .map_or(&[][..], |at| &git_args[at + 1..]);
    if let Some(c) = command
        .as_deref()
        .filter(|c| c.as_encoded_bytes().contains(&b'/'))
    {
        return Some(format!(
            "paddock: git was not run: its command `{}` names a program by its path; nobody \
             approved this command",
            c.to_string_lossy()
        ));
    }
    let remote_end = command
        .as_deref()
        .is_some_and(|c| REMOTE_END.iter().any(|n| OsStr::new(n) == c));
    let git_dir = if remote_end {
        // The repository is the one named, found as git finds it, not the one where it
        // starts; one Paddock cannot name is refused (git would fail on most).
        match named::remote_repository(real, &options, after) {
            Some(dir) => dir,
            None => {
                return Some(
                    "paddock: git was not run: Paddock could not tell which repository the \
                     other end of this fetch or push would use"
                        .to_owned(),
                );
            }
        }
    } else if let Some(dir) = absolute_git_dir(real, &options) {
        dir
    } else {
        // No repository git can name here: what needs none runs, and so does anything where
        // there is no repository to find at all (`git config --global` in a plain folder);
        // a `.git` git could not read, or a folder named by option, is refused.
        let needs_none = command
            .as_deref()
            .is_none_or(|c| NO_REPOSITORY.iter().any(|n| OsStr::new(n) == c))
            || nothing_to_find(&options);
        return (!needs_none).then(|| {
            "paddock: git was not run: Paddock could not tell which repository it would use \
             (in a command nobody approved, git runs only where that is clear)"
                .to_owned()
        });
    };
    if command
        .as_deref()
        .is_some_and(|c| SEQUENCER.iter().any(|n| OsStr::new(n) == c))
        && let Some(steps) = steps_with_exec(&git_dir)
    {
        return Some(format!(
            "paddock: git was not run: {} holds `exec` lines, which git would run as it goes on; \
             nobody approved this command (finish it in a command you approve)",
            steps.display()
        ));
    }
    let common = common_dir(&git_dir);
    for file in [common.join("config"), git_dir.join("config.worktree")] {
        if std::fs::symlink_metadata(&file).is_err() {
            continue;
        }
        if users(&file, list) {
            // The user's, but what it includes may have been written during the call.
            if let Some((included, key)) = included_program(&file, list) {
                return Some(format!(
                    "paddock: git was not run: {} (included by {}) was written during this \
                     command and sets {key}, which makes git run a program; nobody approved \
                     this command",
                    included.display(),
                    file.display()
                ));
            }
            continue;
        }
        let key = match read_config(&file) {
            Some(text) => first_active_key(&text),
            None => Some("(a file Paddock could not read as text)".to_owned()),
        };
        if let Some(key) = key {
            return Some(format!(
                "paddock: git was not run: {} was written during this command and sets {key}, \
                 which makes git run a program; nobody approved this command (the file is held \
                 for the user when the command ends)",
                file.display()
            ));
        }
    }
    None
}

/// A file `config` (the user's) includes, directly or through others, that is not the
/// user's and names a program (or cannot be read), with the key.
fn included_program(config: &Path, list: &Path) -> Option<(PathBuf, String)> {
    let included = match included_files(config) {
        Ok(files) => files,
        Err(why) => return Some((config.to_path_buf(), why)),
    };
    included.into_iter().find_map(|file| {
        if users(&file, list) {
            return None;
        }
        let key = match read_config(&file) {
            Some(text) => first_active_key(&text)?,
            None => "(a file Paddock could not read as text)".to_owned(),
        };
        Some((file, key))
    })
}

/// The helper as git's hook `NAME` for a call. Runs the repository's own hook when it is
/// the user's; otherwise says so and succeeds, as if there were none.
pub fn hook(args: &[&OsStr]) -> i32 {
    let Some((name, real, list, hook_args)) =
        split(args, 3).map(|(head, rest)| (head[0], head[1], head[2], rest))
    else {
        eprintln!("paddock git hook: usage: {HOOK_FLAG} NAME REAL LIST -- ARGS");
        return 2;
    };
    let Some(hooks) = own_hooks_folder(Path::new(real)) else {
        return 0;
    };
    let path = normal(
        &std::env::current_dir()
            .unwrap_or_default()
            .join(hooks)
            .join(name),
    );
    let runnable =
        std::fs::metadata(&path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    if !runnable {
        return 0;
    }
    if !listed_hook(&path, Path::new(list)) {
        eprintln!(
            "paddock: git's {} hook was not run: it was written during this command, which \
             nobody approved",
            name.to_string_lossy()
        );
        return 0;
    }
    let e = Command::new(&path).args(hook_args).exec();
    eprintln!("paddock git hook: could not start {}: {e}", path.display());
    1
}

/// Whether `path` is a hook found at that very path before the call, unchanged: its
/// identity (links followed) as listed for that path. A link made during the call, to a
/// system program or to another trusted script, is not at a listed path.
fn listed_hook(path: &Path, list: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    let id = identity(&meta);
    let Ok(bytes) = std::fs::read(list) else {
        return false;
    };
    bytes.split(|b| *b == b'\n').any(|line| {
        line.iter().position(|b| *b == b'\t').is_some_and(|tab| {
            line[..tab] == *id.as_bytes() && line[tab + 1..] == *path.as_os_str().as_bytes()
        })
    })
}

/// `path` with `.` and `..` taken out lexically (git prints `.git/hooks` from where it is).
pub fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `count` arguments, then `--`, then the rest.
fn split<'a>(args: &'a [&'a OsStr], count: usize) -> Option<(&'a [&'a OsStr], &'a [&'a OsStr])> {
    let (head, rest) = args.split_at_checked(count)?;
    let (dashes, rest) = rest.split_first()?;
    (*dashes == OsStr::new("--")).then_some((head, rest))
}

/// The options before git's command that decide its repository (to ask git the same), and
/// the command. An option Paddock does not know there (`--exec-path=`, which runs programs
/// from another folder, among them) is refused: what it does to the repository is unknown.
fn repository_options(args: &[&OsStr]) -> Result<(Vec<OsString>, Option<OsString>), String> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.to_string_lossy();
        if let Some((_, takes)) = REPOSITORY_OPTIONS.iter().find(|(o, _)| *o == text) {
            out.push(arg.to_os_string());
            if *takes {
                out.extend(args.get(i + 1).map(|v| v.to_os_string()));
                i += 1;
            }
        } else if REPOSITORY_OPTIONS
            .iter()
            .any(|(o, takes)| *takes && o.starts_with("--") && text.starts_with(&format!("{o}=")))
        {
            out.push(arg.to_os_string());
        } else if text.starts_with('-') && !OTHER_OPTIONS.contains(&text.as_ref()) {
            return Err(format!(
                "paddock: git was not run: `{text}` before git's command is not an option \
                 Paddock can check in a command nobody approved"
            ));
        } else if !text.starts_with('-') {
            return Ok((out, Some(arg.to_os_string())));
        }
        i += 1;
    }
    Ok((out, None))
}

/// A list of steps in `git_dir` that holds an `exec` (or `x`) line.
fn steps_with_exec(git_dir: &Path) -> Option<PathBuf> {
    STEP_LISTS.iter().map(|f| git_dir.join(f)).find(|file| {
        // Unreadable or too large: judged as holding one.
        let Ok(text) =
            paddock_guard::read_regular_text(file, MAX_CONFIG_BYTES, paddock_guard::Links::Follow)
        else {
            return std::fs::symlink_metadata(file).is_ok();
        };
        text.lines()
            .any(|line| matches!(line.split_whitespace().next(), Some("exec" | "x")))
    })
}

/// Whether git, started here with `options`, has no repository to find: no folder named by
/// option or `GIT_DIR`, and no `.git` in the folder it works in or any above.
fn nothing_to_find(options: &[OsString]) -> bool {
    if std::env::var_os("GIT_DIR").is_some() {
        return false;
    }
    // `--git-dir`, `--work-tree`, `--bare` name where the repository is.
    let names_one = options.iter().any(|o| {
        o.to_str().is_some_and(|o| {
            o.starts_with("--git-dir") || o.starts_with("--work-tree") || o == "--bare"
        })
    });
    if names_one {
        return false;
    }
    let Some(dir) = named::working_dir(options) else {
        return false;
    };
    dir.ancestors()
        .all(|a| std::fs::symlink_metadata(a.join(".git")).is_err())
}

/// The repository folder git would use with `options` here, when there is one.
fn absolute_git_dir(real: &Path, options: &[OsString]) -> Option<PathBuf> {
    let out = Command::new(real)
        .args(options)
        .args(["rev-parse", "--absolute-git-dir"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let path = path_of(out.stdout);
    (out.status.success() && path.is_absolute()).then_some(path)
}

/// A path git printed (any bytes), without its line end.
fn path_of(mut bytes: Vec<u8>) -> PathBuf {
    use std::os::unix::ffi::OsStringExt;
    while bytes.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
        bytes.pop();
    }
    PathBuf::from(OsString::from_vec(bytes))
}

/// The folder holding a repository's configuration and hooks: what `commondir` names, as
/// git reads it.
fn common_dir(git_dir: &Path) -> PathBuf {
    match std::fs::read(git_dir.join("commondir")) {
        Ok(bytes) => git_dir.join(path_of(bytes)),
        Err(_) => git_dir.to_path_buf(),
    }
}

/// Where the repository's own hooks are (its `core.hooksPath`, not Paddock's).
fn own_hooks_folder(real: &Path) -> Option<PathBuf> {
    let out = Command::new(real)
        .args(["rev-parse", "--git-path", "hooks"])
        .env_remove("GIT_CONFIG_COUNT")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status.success().then(|| path_of(out.stdout))
}

/// A configuration file's text: a regular file of at most [`MAX_CONFIG_BYTES`], opened as
/// every file a repository carries is (never blocking on a FIFO put in its place); a link
/// is followed, as git follows it.
fn read_config(path: &Path) -> Option<String> {
    paddock_guard::read_regular_text(path, MAX_CONFIG_BYTES, paddock_guard::Links::Follow).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&'static str]) -> Vec<&'static OsStr> {
        args.iter().map(|a| OsStr::new(*a)).collect()
    }

    #[test]
    fn the_options_that_choose_a_repository_are_kept() {
        let args = os(&[
            "-C",
            "r",
            "-c",
            "a.b=c",
            "--no-pager",
            "--git-dir=x",
            "commit",
            "-C",
            "z",
        ]);
        let (kept, command) = repository_options(&args).unwrap();
        let kept: Vec<String> = kept
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(kept, ["-C", "r", "-c", "a.b=c", "--git-dir=x"]);
        assert_eq!(command.as_deref(), Some(OsStr::new("commit")));
        let (none, _) = repository_options(&os(&["status", "-C", "r"])).unwrap();
        assert!(none.is_empty());
        // An option Paddock cannot judge, before the command, is refused.
        assert!(repository_options(&os(&["--exec-path=x", "-C", "r", "add"])).is_err());
        assert!(repository_options(&os(&["--attr-source=x", "add"])).is_err());
    }

    #[test]
    fn arguments_split_at_the_dashes() {
        let args = os(&["real", "list", "exec", "--", "status"]);
        let (head, rest) = split(&args, 3).unwrap();
        assert_eq!(head, os(&["real", "list", "exec"]).as_slice());
        assert_eq!(rest, os(&["status"]).as_slice());
        assert!(split(&os(&["real", "list", "exec", "status"]), 3).is_none());
        assert!(split(&os(&["real"]), 2).is_none());
    }

    /// A file counts as the user's when listed, and stops counting once rewritten.
    #[test]
    fn a_rewritten_file_is_no_longer_the_users() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config");
        std::fs::write(&file, "[core]\n").unwrap();
        let list = dir.path().join("list");
        std::fs::write(&list, "").unwrap();
        assert!(!users(&file, &list));
        let id = identity(&std::fs::metadata(&file).unwrap());
        std::fs::write(&list, format!("{id}\n")).unwrap();
        assert!(users(&file, &list));
        std::thread::sleep(std::time::Duration::from_millis(10));
        std::fs::write(&file, "[core]\n\tfsmonitor = x\n").unwrap();
        assert!(!users(&file, &list));
    }

    #[test]
    fn the_common_folder_is_what_commondir_names() {
        let dir = tempfile::tempdir().unwrap();
        let wt = dir.path().join("main/.git/worktrees/w");
        std::fs::create_dir_all(&wt).unwrap();
        assert_eq!(common_dir(&wt), wt);
        std::fs::write(wt.join("commondir"), "../..\n").unwrap();
        assert_eq!(common_dir(&wt), wt.join("../.."));
    }
}
