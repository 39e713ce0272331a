//! A session's copy of a folder outside git: the folder copied whole (`cp --reflink=auto`,
//! shared extents where the file system has them), made a repository of its own whose first
//! commit is the folder as copied, so the session's changes, commits, wall and checkpoints
//! work as in a clone. Merging writes what changed since that base back into the folder,
//! checked first: a file the folder changed meanwhile is a conflict and nothing is written.
//! Every write back goes through the path guard beneath the folder (no link followed, never
//! `.git` or `.paddock`).

use std::path::{Path, PathBuf};

use paddock_guard::PathGuard;
use paddock_protocol::{CopiedFiles, MergeOutcome, WorktreeInfo, WorktreeState};

use crate::git::{Git, failed};
use crate::options::{CreateOptions, choose_name};
use crate::record::{Layout, Record, Worktree, private_dir};
use crate::wall::{Reach, Wall, process};
use crate::{BRANCH_PREFIX, WorktreeError, io};

/// Bytes of a folder's file compared with its base at most before writing back.
const MAX_COMPARED_BYTES: u64 = 1024 * 1024 * 1024;

/// What a merge of a copy calls the place it lands in.
pub const INTO_FOLDER: &str = "the project folder";

/// Copies `project` and makes the copy a repository of its own.
pub fn create(
    project: &Path,
    layout: &Layout,
    options: &CreateOptions,
) -> Result<(Worktree, CopiedFiles), WorktreeError> {
    let name = choose_name(None, layout, options)?;
    let checkout = layout.checkout_path(&name);
    let made = copy_folder(project, &checkout, &layout.wall).and_then(|()| {
        let branch = format!("{BRANCH_PREFIX}{name}");
        let git_dir = checkout.join(".git");
        let reach = Reach::writing(&[&checkout], &[]);
        Git::at(&checkout)
            .walled(&layout.wall, reach.clone())
            .run(["init", "--quiet", "--template=", "-b", &branch])?;
        let git = Git::checkout(&checkout).walled(&layout.wall, reach);
        git.run(["add", "--all", "--", "."])?;
        let args = [
            "commit",
            "--quiet",
            "--no-verify",
            "--no-gpg-sign",
            "--allow-empty",
            "-m",
            "The folder as copied",
        ];
        let out = git
            .with_identity(git.command(args)?)
            .output()
            .map_err(WorktreeError::NoGit)?;
        if !out.status.success() {
            return Err(failed(&args, &out));
        }
        let base = git.run(["rev-parse", "HEAD"])?;
        let record = Record {
            info: WorktreeInfo {
                name: name.clone(),
                branch,
                base_ref: "the folder as copied".into(),
                base_commit: base,
                path: checkout.display().to_string(),
                session: None,
                created: humantime::format_rfc3339_seconds(std::time::SystemTime::now())
                    .to_string(),
                plain_copy: true,
                state: WorktreeState::Active,
            },
            checkout: checkout.clone(),
            top: project.to_path_buf(),
            prefix: PathBuf::new(),
            common_dir: git_dir,
        };
        crate::record::save(layout, &record)?;
        Ok(Worktree {
            record,
            layout: layout.clone(),
        })
    });
    match made {
        Ok(w) => Ok((w, CopiedFiles::default())),
        Err(e) => {
            let _ = std::fs::remove_dir_all(&checkout);
            Err(e)
        }
    }
}

fn copy_folder(project: &Path, checkout: &Path, wall: &Wall) -> Result<(), WorktreeError> {
    private_dir(checkout.parent().unwrap_or(checkout))?;
    if checkout.exists() {
        return Err(WorktreeError::Exists {
            name: checkout.display().to_string(),
        });
    }
    // Made empty first, so the copy's wall can make it (and nothing beside it) writable.
    std::os::unix::fs::DirBuilderExt::mode(&mut std::fs::DirBuilder::new(), 0o700)
        .create(checkout)
        .map_err(io(format!("cannot create {}", checkout.display())))?;
    // Links stay links (never followed); special files are not copied. `project/.`: the
    // folder's content into the checkout made above.
    let args: Vec<std::ffi::OsString> = [
        "-R",
        "--no-dereference",
        "--preserve=mode,timestamps,links",
        "--reflink=auto",
    ]
    .iter()
    .map(Into::into)
    .chain([project.join(".").into_os_string(), checkout.into()])
    .collect();
    let reach = Reach::writing(&[checkout], &[project]);
    let out = process(wall, "cp", args, checkout, &reach)?
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(io("cannot run cp"))?;
    if !out.status.success() {
        return Err(WorktreeError::Io {
            context: format!("copying {}", project.display()),
            source: std::io::Error::other(String::from_utf8_lossy(&out.stderr).trim().to_owned()),
        });
    }
    // A folder inside that was a repository of its own stays one only by its files.
    if std::fs::symlink_metadata(checkout.join(".git")).is_ok() {
        return Err(WorktreeError::Tampered {
            what: "the copy has a .git of its own".into(),
        });
    }
    Ok(())
}

/// One changed path of the copy since its base.
struct Change {
    path: String,
    /// Gone from the copy.
    deleted: bool,
}

impl Worktree {
    /// Writes the copy's changes since its base back into the folder (checked whole first).
    pub(crate) fn merge_copy(&mut self, git: &Git) -> Result<MergeOutcome, WorktreeError> {
        let base = self.info().base_commit.clone();
        let head = git.run(["rev-parse", "HEAD"])?;
        if head == base {
            return Ok(MergeOutcome::UpToDate {
                into: INTO_FOLDER.into(),
            });
        }
        let listed = git.run(["diff", "--name-status", "-z", "--no-renames", &base, &head])?;
        let mut fields = listed.split('\0').filter(|f| !f.is_empty());
        let mut changes = Vec::new();
        while let (Some(status), Some(path)) = (fields.next(), fields.next()) {
            changes.push(Change {
                path: path.to_owned(),
                deleted: status.starts_with('D'),
            });
        }
        let folder = &self.record.top;
        let mut conflicts = Vec::new();
        for c in &changes {
            let was = blob(git, &base, &c.path)?;
            let meta = std::fs::symlink_metadata(folder.join(&c.path)).ok();
            let exists = meta.is_some();
            // Never blocks on a FIFO swapped in after the look; too large to compare counts
            // as changed.
            let now = meta.filter(|m| m.is_file()).and_then(|_| {
                paddock_guard::read_regular(
                    &folder.join(&c.path),
                    MAX_COMPARED_BYTES,
                    paddock_guard::Links::Refuse,
                )
                .ok()
            });
            let unchanged = match (&was, &now) {
                (Some(a), Some(b)) => a == b,
                (None, None) => !exists,
                _ => false,
            };
            let read_only = c
                .path
                .split('/')
                .any(|p| paddock_guard::READ_ONLY_DIRS.contains(&p));
            if !unchanged || read_only {
                conflicts.push(c.path.clone());
            }
        }
        if !conflicts.is_empty() {
            return Ok(MergeOutcome::Conflicts {
                into: INTO_FOLDER.into(),
                files: conflicts,
            });
        }
        let root = PathGuard::new(folder.clone()).open_root().map_err(|e| {
            io(format!("cannot open {}", folder.display()))(std::io::Error::other(e.to_string()))
        })?;
        for c in &changes {
            let rel = Path::new(&c.path);
            let written = if c.deleted {
                root.remove(rel)
            } else {
                let mode = git.run(["ls-tree", "--format=%(objectmode)", &head, "--", &c.path])?;
                let content = blob(git, &head, &c.path)?.unwrap_or_default();
                if mode == "120000" {
                    root.put_symlink(
                        rel,
                        Path::new(&String::from_utf8_lossy(&content).into_owned()),
                    )
                } else {
                    root.put_file(rel, &content, if mode == "100755" { 0o755 } else { 0o644 })
                }
            };
            written.map_err(|e| {
                io(format!("writing {} back", c.path))(std::io::Error::other(e.to_string()))
            })?;
        }
        // The next merge brings only what changes after this one.
        self.record.info.base_commit = head.clone();
        Ok(MergeOutcome::Merged {
            into: INTO_FOLDER.into(),
            commit: head,
        })
    }
}

/// The bytes of `path` at `commit` in the copy, `None` when it has no such file.
fn blob(git: &Git, commit: &str, path: &str) -> Result<Option<Vec<u8>>, WorktreeError> {
    let out = git.output(["cat-file", "blob", &format!("{commit}:{path}")])?;
    Ok(out.status.success().then_some(out.stdout))
}
