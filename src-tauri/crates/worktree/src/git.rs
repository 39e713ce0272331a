//! git as Paddock runs it on what a session wrote: behind its own wall (writing only what the
//! operation names), no hooks, no file-system monitor, no prompt, none of the caller's
//! `GIT_*` variables, and (in a session's checkout) the git folder named outright so a
//! `commondir` or `.git` file the session wrote is never followed.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::wall::{Reach, Wall, process};
use crate::{WorktreeError, io};

/// Settings every git run gets: a hook or monitor would run a program from a folder the
/// session or the repository wrote.
const SAFE_CONFIG: &[&str] = &[
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.sshCommand=false",
    "protocol.allow=never",
    "protocol.file.allow=always",
    // No maintenance left running in the background after Paddock's own commands.
    "gc.auto=0",
    "maintenance.auto=false",
];

/// One repository to run git in, and what git may touch there.
#[derive(Debug, Clone)]
pub struct Git {
    cwd: PathBuf,
    /// Set for a session's checkout: `GIT_DIR` = `GIT_COMMON_DIR` = this, work tree = `cwd`.
    git_dir: Option<PathBuf>,
    wall: Wall,
    reach: Reach,
}

impl Git {
    /// git in `cwd`, bare (outside any wall): only for repositories no session writes.
    pub fn at(cwd: impl Into<PathBuf>) -> Self {
        Self {
            cwd: cwd.into(),
            git_dir: None,
            wall: None,
            reach: Reach::default(),
        }
    }

    /// A checkout whose git folder is `<checkout>/.git`, named outright.
    pub fn checkout(checkout: &Path) -> Self {
        Self {
            git_dir: Some(checkout.join(".git")),
            ..Self::at(checkout)
        }
    }

    /// The same git behind `wall`, touching only what `reach` names.
    pub fn walled(mut self, wall: &Wall, reach: Reach) -> Self {
        self.wall = wall.clone();
        self.reach = reach;
        self
    }

    pub fn command<I, S>(&self, args: I) -> Result<Command, WorktreeError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut argv: Vec<OsString> = Vec::new();
        for setting in SAFE_CONFIG {
            argv.push("-c".into());
            argv.push(setting.into());
        }
        argv.extend(args.into_iter().map(|a| a.as_ref().to_os_string()));
        let mut c = process(&self.wall, "git", argv, &self.cwd, &self.reach)?;
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("GIT_") {
                c.env_remove(key);
            }
        }
        c.env("GIT_TERMINAL_PROMPT", "0")
            .env("LC_ALL", "C")
            .env("GIT_OPTIONAL_LOCKS", "0");
        if let Some(dir) = &self.git_dir {
            c.env("GIT_DIR", dir)
                .env("GIT_COMMON_DIR", dir)
                .env("GIT_WORK_TREE", &self.cwd);
        }
        c.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        Ok(c)
    }

    /// The whole output, whatever the exit status.
    pub fn output<I, S>(&self, args: I) -> Result<Output, WorktreeError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.command(args)?.output().map_err(WorktreeError::NoGit)
    }

    /// Standard output, trimmed; a failure is an error with git's own words.
    pub fn run<I, S>(&self, args: I) -> Result<String, WorktreeError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let args: Vec<S> = args.into_iter().collect();
        let out = self.output(args.iter())?;
        if out.status.success() {
            return Ok(String::from_utf8_lossy(&out.stdout).trim_end().to_owned());
        }
        Err(failed(&args, &out))
    }

    /// Whether the command succeeded (for `--verify` and `--is-ancestor` questions).
    pub fn ok<I, S>(&self, args: I) -> Result<bool, WorktreeError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        Ok(self.output(args)?.status.success())
    }

    /// The commit `rev` names, if it names one.
    pub fn commit_of(&self, rev: &str) -> Result<Option<String>, WorktreeError> {
        if rev.starts_with('-') {
            return Ok(None);
        }
        let out = self.output([
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ])?;
        Ok(out
            .status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned()))
    }

    /// Git's identity for commits Paddock makes: the user's when git has one, else Paddock's.
    pub fn with_identity(&self, mut command: Command) -> Command {
        let known = self
            .output(["config", "--get", "user.email"])
            .is_ok_and(|o| o.status.success());
        if !known {
            for (k, v) in [
                ("GIT_AUTHOR_NAME", "Paddock"),
                ("GIT_AUTHOR_EMAIL", "paddock@localhost"),
                ("GIT_COMMITTER_NAME", "Paddock"),
                ("GIT_COMMITTER_EMAIL", "paddock@localhost"),
            ] {
                command.env(k, v);
            }
        }
        command
    }
}

pub fn failed<S: AsRef<OsStr>>(args: &[S], out: &Output) -> WorktreeError {
    let args: Vec<String> = args
        .iter()
        .map(|a| a.as_ref().to_string_lossy().into_owned())
        .collect();
    let stderr = String::from_utf8_lossy(&out.stderr).trim().to_owned();
    WorktreeError::Git {
        args: args.join(" "),
        stderr: if stderr.is_empty() {
            format!("exit status {}", out.status)
        } else {
            stderr
        },
    }
}

/// The project's repository: its top folder, the project's place below it and its shared
/// git folder (objects, refs).
#[derive(Debug, Clone)]
pub struct Repo {
    pub top: PathBuf,
    /// The project folder relative to `top` (empty at the top).
    pub prefix: PathBuf,
    pub common_dir: PathBuf,
    wall: Wall,
}

impl Repo {
    /// The repository `project` is in. Where it is, is asked of git outside the wall (the
    /// wall shows only what is named, and the top is not known yet; `rev-parse` runs no
    /// program even with the safe settings off); everything after runs behind `wall`.
    pub fn open(project: &Path, wall: &Wall) -> Result<Self, WorktreeError> {
        let git = Git::at(project);
        let out = git.output([
            "rev-parse",
            "--show-toplevel",
            "--git-common-dir",
            "--show-prefix",
        ])?;
        if !out.status.success() {
            return Err(WorktreeError::NotARepo {
                folder: project.display().to_string(),
            });
        }
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let mut lines = text.lines();
        let (Some(top), Some(common)) = (lines.next(), lines.next()) else {
            return Err(WorktreeError::NotARepo {
                folder: project.display().to_string(),
            });
        };
        let prefix = PathBuf::from(lines.next().unwrap_or("").trim_end_matches('/'));
        let common = project.join(common);
        let common_dir = common
            .canonicalize()
            .map_err(io(format!("cannot open {}", common.display())))?;
        Ok(Self {
            top: PathBuf::from(top),
            prefix,
            common_dir,
            wall: wall.clone(),
        })
    }

    /// git in the project's repository: it may write the git folder (a branch made, a
    /// clone's objects read), never the files.
    pub fn git(&self) -> Git {
        let reach = Reach::writing(&[&self.common_dir], &[&self.top]);
        Git::at(&self.top).walled(&self.wall, reach)
    }

    pub(crate) fn wall(&self) -> &Wall {
        &self.wall
    }

    /// Local branches but the sessions' own, and the one checked out.
    pub fn branches(&self) -> Result<paddock_protocol::BranchList, WorktreeError> {
        let git = self.git();
        let listed = git.run(["for-each-ref", "--format=%(refname:short)", "refs/heads/"])?;
        let current = git.run(["symbolic-ref", "--quiet", "--short", "HEAD"]).ok();
        Ok(paddock_protocol::BranchList {
            current,
            branches: listed
                .lines()
                .filter(|b| !b.is_empty() && !b.starts_with(crate::BRANCH_PREFIX))
                .map(str::to_owned)
                .collect(),
        })
    }
}
