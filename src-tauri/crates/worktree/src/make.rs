//! Making a session's worktree: the branch `paddock/<name>` in the project's repository, a
//! clone sharing its objects checked out on that branch, the untracked files the work needs
//! copied in. A failure leaves nothing behind.

use std::path::Path;

use paddock_protocol::{CopiedFiles, WorktreeInfo, WorktreeState};

use crate::git::{Git, Repo};
use crate::options::{CreateOptions, choose_name};
use crate::record::{Layout, Record, Worktree, private_dir};
use crate::wall::Reach;
use crate::{BRANCH_PREFIX, WorktreeError, io};

/// Makes the worktree and copies in what `options.copy` names.
pub fn create(
    project: &Path,
    layout: &Layout,
    options: &CreateOptions,
) -> Result<(Worktree, CopiedFiles), WorktreeError> {
    let repo = match Repo::open(project, &layout.wall) {
        Err(WorktreeError::NotARepo { .. }) if options.plain_copy => {
            return crate::record::plain::create(project, layout, options);
        }
        other => other?,
    };
    let git = repo.git();
    let name = choose_name(Some(&repo), layout, options)?;
    let base_ref = options.base_ref.clone().unwrap_or_else(|| "HEAD".into());
    let base = match git.commit_of(&base_ref)? {
        Some(c) => c,
        None if base_ref == "HEAD" => return Err(WorktreeError::NoCommit),
        None => return Err(WorktreeError::BadBase { base: base_ref }),
    };
    let branch = format!("{BRANCH_PREFIX}{name}");
    // The empty old value: only if no such branch exists (another process may race us).
    git.run(["update-ref", &format!("refs/heads/{branch}"), &base, ""])?;
    let checkout = layout.checkout_path(&name);
    let made = make_checkout(&repo, &checkout, &branch, &base).and_then(|()| {
        let record = Record {
            info: WorktreeInfo {
                name: name.clone(),
                branch: branch.clone(),
                base_ref,
                base_commit: base.clone(),
                path: checkout.join(&repo.prefix).display().to_string(),
                session: None,
                created: humantime::format_rfc3339_seconds(std::time::SystemTime::now())
                    .to_string(),
                plain_copy: false,
                state: WorktreeState::Active,
            },
            checkout: checkout.clone(),
            top: repo.top.clone(),
            prefix: repo.prefix.clone(),
            common_dir: repo.common_dir.clone(),
        };
        let copied = crate::copy_into(&repo.top, &checkout, &options.copy)?;
        crate::record::save(layout, &record)?;
        Ok((
            Worktree {
                record,
                layout: layout.clone(),
            },
            copied,
        ))
    });
    if made.is_err() {
        let _ = std::fs::remove_dir_all(&checkout);
        let _ = git.run(["update-ref", "-d", &format!("refs/heads/{branch}"), &base]);
    }
    made
}

pub(crate) fn make_checkout(
    repo: &Repo,
    checkout: &Path,
    branch: &str,
    base: &str,
) -> Result<(), WorktreeError> {
    let parent = checkout.parent().unwrap_or(checkout);
    private_dir(parent)?;
    if checkout.exists() {
        return Err(WorktreeError::Exists {
            name: checkout.display().to_string(),
        });
    }
    // Made empty first, so the clone's wall can make it (and nothing beside it) writable.
    std::os::unix::fs::DirBuilderExt::mode(&mut std::fs::DirBuilder::new(), 0o700)
        .create(checkout)
        .map_err(io(format!("cannot create {}", checkout.display())))?;
    let reach = Reach::writing(&[checkout], &[&repo.top, &repo.common_dir]);
    // No template: no hooks, whatever `init.templateDir` says.
    Git::at(parent).walled(repo.wall(), reach.clone()).run([
        std::ffi::OsStr::new("clone"),
        "--shared".as_ref(),
        "--no-checkout".as_ref(),
        "--quiet".as_ref(),
        "--template=".as_ref(),
        repo.top.as_os_str(),
        checkout.as_os_str(),
    ])?;
    let git = Git::checkout(checkout).walled(repo.wall(), reach);
    // Files written by one worker per core: the checkout is most of the time to ready.
    git.run([
        "-c",
        "checkout.workers=0",
        "checkout",
        "--quiet",
        "-b",
        branch,
        base,
    ])?;
    crate::gitdir::verify(checkout, &repo.common_dir)
}
