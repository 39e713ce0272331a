//! Bringing a session's work back: what its branch holds, committing the checkout, the
//! branch fetched into the project's repository, merged into a branch the user picks (a
//! fast-forward or a merge commit, computed before anything moves: a conflict changes
//! nothing), kept, or discarded.

use paddock_protocol::{MergeOutcome, WorktreeChanges, WorktreeState};

use crate::git::{Git, failed};
use crate::gitdir::verify;
use crate::record::Worktree;
use crate::wall::Reach;
use crate::{WorktreeError, io};

/// Paths cleared of their index marks per `update-index` call (a command line's length).
const MARKS_PER_CALL: usize = 500;

/// What discarding a worktree threw away.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discarded {
    pub commits: u32,
    pub uncommitted: Vec<String>,
}

impl Worktree {
    /// git in the checkout, able to write its `.git` only.
    fn git(&self) -> Result<Git, WorktreeError> {
        let git_dir = self.checkout().join(".git");
        let reach = Reach::writing(&[&git_dir], &[self.checkout(), self.common_dir()]);
        self.checked(reach)
    }

    /// git in the checkout, able to write nothing (status, diffs, blobs).
    fn reader(&self) -> Result<Git, WorktreeError> {
        self.checked(Reach::reading(&[self.checkout(), self.common_dir()]))
    }

    fn checked(&self, reach: Reach) -> Result<Git, WorktreeError> {
        if !self.checkout().is_dir() {
            return Err(WorktreeError::NotActive {
                name: self.name().to_owned(),
                state: "its checkout is gone".into(),
            });
        }
        verify(self.checkout(), self.common_dir())?;
        Ok(Git::checkout(self.checkout()).walled(&self.layout.wall, reach))
    }

    /// git in the project's repository, able to write its git folder only (objects and
    /// refs a fetch or a merge adds), reading the checkout it fetches from.
    fn project_git(&self) -> Git {
        let reach = Reach::writing(
            &[&self.record.common_dir],
            &[&self.record.top, self.checkout()],
        );
        Git::at(&self.record.top).walled(&self.layout.wall, reach)
    }

    /// What the checkout holds beyond its base: commits, uncommitted files, changed files.
    pub fn changes(&self) -> Result<WorktreeChanges, WorktreeError> {
        let git = self.reader()?;
        let base = &self.info().base_commit;
        let commits = git
            .run(["rev-list", "--count", &format!("{base}..HEAD")])?
            .parse()
            .unwrap_or(0);
        let status = git.run(["status", "--porcelain=v1", "-z", "--untracked-files=all"])?;
        let mut uncommitted = Vec::new();
        let mut records = status.split('\0').filter(|r| !r.is_empty());
        while let Some(r) = records.next() {
            if r.len() > 3 {
                uncommitted.push(r[3..].to_owned());
            }
            // A rename's record is followed by its old name.
            if r.starts_with('R') || r.starts_with('C') {
                records.next();
            }
        }
        let diff = git.run(["diff", "--name-only", "-z", base, "--"])?;
        let mut files: Vec<String> = diff
            .split('\0')
            .filter(|f| !f.is_empty())
            .map(str::to_owned)
            .collect();
        for u in &uncommitted {
            if !files.contains(u) {
                files.push(u.clone());
            }
        }
        files.sort();
        Ok(WorktreeChanges {
            commits,
            uncommitted,
            files,
        })
    }

    /// The files the branch's commits change beyond the base, tree against tree: what a
    /// merge or keep lands, whatever the checkout's index or working files say (a change
    /// staged through the index with `--assume-unchanged` is in the tree all the same).
    pub fn landed_files(&self) -> Result<Vec<String>, WorktreeError> {
        let git = self.reader()?;
        let base = &self.info().base_commit;
        let diff = git.run([
            "diff",
            "--name-only",
            "-z",
            "--no-renames",
            "--no-ext-diff",
            "--no-textconv",
            base,
            "HEAD",
            "--",
        ])?;
        Ok(diff
            .split('\0')
            .filter(|f| !f.is_empty())
            .map(str::to_owned)
            .collect())
    }

    /// What a commit now would hold, as text for a model to describe: the diff of tracked
    /// files against HEAD and the names of new files, cut at `max` characters.
    pub fn pending_text(&self, max: usize) -> Result<String, WorktreeError> {
        let git = self.reader()?;
        let mut text = git.run(["diff", "HEAD", "--stat", "--no-color"])?;
        text.push_str("\n\n");
        text.push_str(&git.run(["diff", "HEAD", "--no-color", "--no-ext-diff"])?);
        let untracked = git.run(["ls-files", "--others", "--exclude-standard"])?;
        if !untracked.is_empty() {
            text.push_str("\n\nNew files:\n");
            text.push_str(&untracked);
        }
        if text.len() > max {
            let mut end = max;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.truncate(end);
            text.push_str("\n[... cut]");
        }
        Ok(text.trim().to_owned())
    }

    /// The bytes of `path` (relative to the checkout) at the worktree's base; `None` when the
    /// base has no such file. A path that could name anything else is refused.
    pub fn base_file(&self, path: &str) -> Result<Option<Vec<u8>>, WorktreeError> {
        let plain = !path.is_empty()
            && !path.starts_with('/')
            && !path.contains('\0')
            && path
                .split('/')
                .all(|p| !p.is_empty() && p != "." && p != "..");
        if !plain {
            return Err(WorktreeError::BadPath {
                path: path.to_owned(),
            });
        }
        let git = self.reader()?;
        let spec = format!("{}:{path}", self.info().base_commit);
        let out = git.output(["cat-file", "blob", &spec])?;
        Ok(out.status.success().then_some(out.stdout))
    }

    fn on_branch(&self, git: &Git) -> Result<(), WorktreeError> {
        let head = git
            .run(["symbolic-ref", "--quiet", "HEAD"])
            .unwrap_or_else(|_| "a detached HEAD".into());
        let want = format!("refs/heads/{}", self.branch());
        if head != want {
            return Err(WorktreeError::OffBranch {
                head: head.trim_start_matches("refs/heads/").to_owned(),
                branch: self.branch().to_owned(),
            });
        }
        Ok(())
    }

    /// Commits everything the checkout has not committed; `None` when there was nothing.
    pub fn commit(&self, message: &str) -> Result<Option<String>, WorktreeError> {
        let git = self.git()?;
        self.on_branch(&git)?;
        self.index_follows_files(&git)?;
        git.run(["add", "--all", "--", "."])?;
        if git.ok(["diff", "--cached", "--quiet"])? {
            return Ok(None);
        }
        let args = [
            "commit",
            "--quiet",
            "--no-verify",
            "--no-gpg-sign",
            "-m",
            message,
        ];
        let out = git
            .with_identity(git.command(args)?)
            .output()
            .map_err(WorktreeError::NoGit)?;
        if !out.status.success() {
            return Err(failed(&args, &out));
        }
        Ok(Some(git.run(["rev-parse", "HEAD"])?))
    }

    /// Clears the index's `assume-unchanged` and `skip-worktree` marks, which make `add`
    /// keep whatever the index holds: after Paddock's commit the branch holds exactly the
    /// checkout's files (a change staged only through the index is undone, not landed).
    fn index_follows_files(&self, git: &Git) -> Result<(), WorktreeError> {
        let listed = git.run(["ls-files", "-z", "-v"])?;
        let marked: Vec<&str> = listed
            .split('\0')
            .filter_map(|entry| {
                let tag = entry.chars().next()?;
                let path = entry.get(2..)?;
                (tag.is_ascii_lowercase() || tag == 'S').then_some(path)
            })
            .collect();
        for chunk in marked.chunks(MARKS_PER_CALL) {
            let mut args = vec![
                "update-index",
                "--no-assume-unchanged",
                "--no-skip-worktree",
                "--",
            ];
            args.extend(chunk);
            git.run(args)?;
        }
        Ok(())
    }

    /// Brings the branch into the project's repository (fetch checks each object it copies).
    /// Only `paddock/<name>` moves there, whatever the session did to other refs.
    pub fn sync(&self) -> Result<String, WorktreeError> {
        let git = self.git()?;
        self.on_branch(&git)?;
        if self.info().plain_copy {
            // The folder has no repository to bring a branch into.
            return git.run(["rev-parse", "HEAD"]);
        }
        let branch = format!("refs/heads/{}", self.branch());
        let source = self.checkout().join(".git");
        self.project_git().run([
            std::ffi::OsStr::new("-c"),
            "transfer.fsckObjects=true".as_ref(),
            "fetch".as_ref(),
            "--quiet".as_ref(),
            "--no-tags".as_ref(),
            "--no-write-fetch-head".as_ref(),
            "--no-recurse-submodules".as_ref(),
            source.as_os_str(),
            format!("+{branch}:{branch}").as_ref(),
        ])?;
        self.project_git().run(["rev-parse", &branch])
    }

    /// Commits what is left (with `message`), brings the branch over and merges it into
    /// `into` (default: the project's current branch). A conflict changes nothing.
    pub fn merge(
        &mut self,
        into: Option<&str>,
        message: &str,
    ) -> Result<MergeOutcome, WorktreeError> {
        self.commit(message)?;
        if self.info().plain_copy {
            let outcome = self.merge_copy(&self.reader()?)?;
            if let MergeOutcome::Merged { into, commit } = &outcome {
                self.record.info.state = WorktreeState::Merged {
                    into: into.clone(),
                    commit: commit.clone(),
                };
                self.save()?;
            }
            return Ok(outcome);
        }
        let theirs = self.sync()?;
        let project = self.project_git();
        let into = match into {
            Some(b) => b.trim_start_matches("refs/heads/").to_owned(),
            None => project
                .run(["symbolic-ref", "--quiet", "--short", "HEAD"])
                .map_err(|_| WorktreeError::BadBranch {
                    branch: "HEAD (detached): name a branch to merge into".into(),
                })?,
        };
        let target = format!("refs/heads/{into}");
        if into.starts_with('-')
            || into == self.branch()
            || !project.ok(["rev-parse", "--verify", "--quiet", &target])?
        {
            return Err(WorktreeError::BadBranch { branch: into });
        }
        let ours = project.run(["rev-parse", &target])?;
        if project.ok(["merge-base", "--is-ancestor", &theirs, &ours])? {
            return Ok(MergeOutcome::UpToDate { into });
        }
        let fast_forward = project.ok(["merge-base", "--is-ancestor", &ours, &theirs])?;
        let commit = if fast_forward {
            theirs.clone()
        } else {
            let out = project.output([
                "merge-tree",
                "--write-tree",
                "--name-only",
                "--no-messages",
                "-z",
                &ours,
                &theirs,
            ])?;
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            let mut parts = text.split('\0').filter(|p| !p.is_empty());
            let tree = parts.next().unwrap_or_default().to_owned();
            match out.status.code() {
                Some(0) => {}
                Some(1) => {
                    let mut files: Vec<String> = parts.map(str::to_owned).collect();
                    files.dedup();
                    return Ok(MergeOutcome::Conflicts { into, files });
                }
                _ => return Err(failed(&["merge-tree"], &out)),
            }
            let msg = format!("Merge branch '{}' into {into}", self.branch());
            let args = [
                "commit-tree",
                tree.as_str(),
                "-p",
                &ours,
                "-p",
                &theirs,
                "-m",
                &msg,
            ];
            let out = project
                .with_identity(project.command(args)?)
                .output()
                .map_err(WorktreeError::NoGit)?;
            if !out.status.success() {
                return Err(failed(&args, &out));
            }
            String::from_utf8_lossy(&out.stdout).trim().to_owned()
        };
        self.advance(&into, &ours, &commit)?;
        self.record.info.state = WorktreeState::Merged {
            into: into.clone(),
            commit: commit.clone(),
        };
        self.save()?;
        Ok(if fast_forward {
            MergeOutcome::FastForward { into, commit }
        } else {
            MergeOutcome::Merged { into, commit }
        })
    }

    /// Moves `into` from `ours` to `commit`: through the checkout that has it checked out
    /// (a fast-forward there, refused whole when local changes are in the way), else the ref.
    fn advance(&self, into: &str, ours: &str, commit: &str) -> Result<(), WorktreeError> {
        let project = self.project_git();
        let list = project.run(["worktree", "list", "--porcelain", "-z"])?;
        let mut path = None;
        for entry in list.split("\0\0") {
            let fields: Vec<&str> = entry.split('\0').collect();
            let here = fields.iter().find_map(|f| f.strip_prefix("worktree "));
            if fields.contains(&format!("branch refs/heads/{into}").as_str()) {
                path = here.map(str::to_owned);
            }
        }
        let Some(path) = path else {
            project.run(["update-ref", &format!("refs/heads/{into}"), commit, ours])?;
            return Ok(());
        };
        // The user's checkout of `into`: git writes its files and its git folder.
        let reach = Reach::writing(&[std::path::Path::new(&path), &self.record.common_dir], &[]);
        let there = Git::at(&path).walled(&self.layout.wall, reach);
        let out = there.output(["merge", "--ff-only", "--quiet", "--no-verify", commit])?;
        if out.status.success() {
            return Ok(());
        }
        Err(WorktreeError::LocalChanges {
            branch: into.to_owned(),
            path,
            detail: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        })
    }

    /// Commits what is left, brings the branch over and removes the checkout.
    pub fn keep(&mut self, message: &str) -> Result<String, WorktreeError> {
        if self.info().plain_copy {
            return Err(WorktreeError::NotActive {
                name: self.name().to_owned(),
                state: "a plain copy has no branch in the folder to keep; merge or discard it"
                    .into(),
            });
        }
        self.commit(message)?;
        let head = self.sync()?;
        self.remove_checkout()?;
        self.record.info.state = WorktreeState::Kept;
        self.save()?;
        Ok(head)
    }

    /// What discarding would lose: commits the branch has beyond its base and not merged,
    /// and uncommitted files.
    pub fn would_lose(&self) -> Result<Discarded, WorktreeError> {
        if !self.checkout().is_dir() {
            return Ok(Discarded {
                commits: 0,
                uncommitted: Vec::new(),
            });
        }
        let changes = self.changes()?;
        let merged = matches!(self.info().state, WorktreeState::Merged { .. });
        Ok(Discarded {
            commits: if merged { 0 } else { changes.commits },
            uncommitted: changes.uncommitted,
        })
    }

    /// Removes the checkout, the branch and the record.
    pub fn discard(mut self) -> Result<Discarded, WorktreeError> {
        let lost = self.would_lose().unwrap_or(Discarded {
            commits: 0,
            uncommitted: Vec::new(),
        });
        self.remove_checkout()?;
        let branch = format!("refs/heads/{}", self.branch());
        let project = self.project_git();
        if project.ok(["rev-parse", "--verify", "--quiet", &branch])? {
            project.run(["update-ref", "-d", &branch])?;
        }
        self.forget()?;
        Ok(lost)
    }

    fn remove_checkout(&self) -> Result<(), WorktreeError> {
        // Never follows a link the session left in it.
        match std::fs::remove_dir_all(self.checkout()) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(io(format!("cannot remove {}", self.checkout().display()))(
                e,
            )),
        }
    }
}
