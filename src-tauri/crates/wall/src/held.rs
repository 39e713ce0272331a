//! What a call wrote that would make a program run outside the wall (git configuration or
//! hooks, a `.git` link out of the workspace, `.envrc`, editor task files) is never kept
//! unseen. bash's such files are set aside the moment the command ends (renamed, or put
//! back as they were), the user is asked with the diff, and they come back only on a yes;
//! a headless run never keeps them. The file tools ask before they write one.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use paddock_changes::file_change;
use paddock_core::approval::Verdict;
use paddock_core::{ToolContext, ToolError};
use paddock_guard::PathGuard;
use paddock_protocol::{CallPreview, FileChange};
use paddock_sandbox::autorun::{self, Held};

use crate::Wall;

/// Shown in the diff where the content is not text Paddock kept.
const NOT_SHOWN: &[u8] = b"(not shown: a link, a special file or over 1 MiB)\n";

/// A held file, out of the way while the user decides.
struct Aside {
    held: Held,
    /// Where the new file went (renamed beside itself); `None`: the old content was put
    /// back in place.
    moved_to: Option<PathBuf>,
}

/// Sets aside everything in `held` (found under `root` after a call), asks the user, and
/// keeps or removes it. Returns the line the result carries.
pub(crate) async fn hold_after_call(root: &Path, held: Vec<Held>, ctx: &ToolContext) -> String {
    let mut aside = Vec::new();
    let mut failed = Vec::new();
    for h in held {
        match set_aside(root, &h) {
            Ok(moved_to) => aside.push(Aside { held: h, moved_to }),
            Err(e) => failed.push(format!("{}: {e}", h.rel.display())),
        }
    }
    let reasons: Vec<String> = aside.iter().map(|a| a.held.why.clone()).collect();
    let changes: Vec<FileChange> = aside.iter().map(|a| change_of(&a.held)).collect();
    let verdict = if aside.is_empty() {
        None
    } else {
        Some(
            ask(
                ctx,
                reasons.clone(),
                changes,
                "keep what this command wrote",
            )
            .await,
        )
    };
    let mut text = String::new();
    match verdict {
        Some(Verdict::Approved) => {
            for a in &aside {
                if let Err(e) = put_back(root, a) {
                    failed.push(format!(
                        "{}: could not be put back: {e}",
                        a.held.rel.display()
                    ));
                }
            }
            text.push_str(&format!(
                "[kept with the user's approval, though programs outside the sandbox run them: {}]",
                reasons.join("; ")
            ));
        }
        Some(Verdict::Denied(_, why)) => {
            for a in &aside {
                discard(a);
            }
            text.push_str(&format!(
                "[not kept: this command wrote files that would make programs run outside the \
                 sandbox, and they were removed or put back as they were ({why}): {}]",
                reasons.join("; ")
            ));
        }
        Some(Verdict::Aborted) => {
            for a in &aside {
                discard(a);
            }
            text.push_str(&format!(
                "[not kept (the run was stopped while asking): {}]",
                reasons.join("; ")
            ));
        }
        None => {}
    }
    if !failed.is_empty() {
        text.push_str(&format!(
            "\n[could not set aside, so still in place — check them before you use git or \
             open the folder in an editor: {}]",
            failed.join("; ")
        ));
    }
    text
}

/// Before a file tool writes `path`: when the file would run outside the wall, the user's
/// yes on the change `plan` works out (returned, so the write can check it is still that
/// change), or a refusal the model sees. `None`: an ordinary file, nothing asked.
pub async fn check_write<F>(
    wall: &Wall<'_>,
    path: &str,
    plan: F,
    ctx: &ToolContext,
) -> Result<Option<FileChange>, ToolError>
where
    F: FnOnce() -> Result<FileChange, ToolError> + Send + 'static,
{
    let (guard, path, extra) = (wall.guard(), path.to_owned(), wall.sandbox.auto_run.clone());
    let why = crate::blocking(move || Ok(why_held(&guard, &path, &extra))).await?;
    let Some(why) = why else {
        return Ok(None);
    };
    let change = crate::blocking(plan).await?;
    confirm_write(ctx, why, change.clone()).await?;
    Ok(Some(change))
}

/// The change about to be written is the one the user approved in [`check_write`].
pub fn still_confirmed(
    confirmed: Option<&FileChange>,
    change: &FileChange,
) -> Result<(), ToolError> {
    match confirmed {
        Some(approved) if approved != change => Err(ToolError::Failed(format!(
            "'{}' changed while this call waited for approval; nothing was written",
            change.path
        ))),
        _ => Ok(()),
    }
}

/// Why writing `path` would make a program run outside the wall, if it would.
fn why_held(guard: &PathGuard, path: &str, extra: &[String]) -> Option<String> {
    match guard.open_root() {
        Ok(root) => {
            let resolved = root.resolve(path).ok()?;
            autorun::classify(root.real_path(), &resolved.rel, extra)
        }
        Err(_) => autorun::classify(guard.root(), Path::new(path), extra),
    }
}

/// Asks about writing `change`, which `why` says would run outside the wall: the user's
/// yes, or a refusal the model sees.
async fn confirm_write(
    ctx: &ToolContext,
    why: String,
    change: FileChange,
) -> Result<(), ToolError> {
    match ask(ctx, vec![why.clone()], vec![change], "write this file").await {
        Verdict::Approved => Ok(()),
        Verdict::Denied(_, reason) => Err(ToolError::Failed(format!(
            "not written: {why}. It needs the user's explicit approval ({reason})."
        ))),
        Verdict::Aborted => Err(ToolError::Failed("not written: the run was stopped".into())),
    }
}

async fn ask(
    ctx: &ToolContext,
    reasons: Vec<String>,
    changes: Vec<FileChange>,
    what: &str,
) -> Verdict {
    let Some(call) = ctx.call.as_deref() else {
        return Verdict::Denied(
            paddock_protocol::DenyReason::NoApprover,
            "no call to ask about".to_owned(),
        );
    };
    let why = format!(
        "{what}? Programs outside the sandbox would run it: {}",
        reasons.join("; ")
    );
    let preview = CallPreview::Held { reasons, changes };
    ctx.approvals
        .confirm(
            call,
            what,
            Some(&preview),
            &why,
            ctx.events.as_ref(),
            &ctx.cancel,
        )
        .await
}

fn change_of(h: &Held) -> FileChange {
    let path = h.rel.to_string_lossy().replace('\\', "/");
    let now = h.now.as_deref().unwrap_or(NOT_SHOWN);
    let before = if h.existed {
        Some(h.before.as_deref().unwrap_or(NOT_SHOWN))
    } else {
        None
    };
    file_change(&path, before, Some(now))
}

/// Puts the old content back in place when both sides are known, else moves the new file
/// beside itself under a name nothing runs.
fn set_aside(root: &Path, h: &Held) -> std::io::Result<Option<PathBuf>> {
    let path = checked(root, &h.rel)?;
    if let (Some(before), Some(_)) = (&h.before, &h.now) {
        write_whole(&path, before)?;
        return Ok(None);
    }
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = h.rel.file_name().unwrap_or_default().to_string_lossy();
    let moved_to = path.with_file_name(format!(
        ".paddock-held-{}-{}-{name}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::rename(&path, &moved_to)?;
    if let (true, Some(before)) = (h.existed, &h.before) {
        write_whole(&path, before)?;
    }
    Ok(Some(moved_to))
}

fn put_back(root: &Path, a: &Aside) -> std::io::Result<()> {
    let path = checked(root, &a.held.rel)?;
    match (&a.moved_to, &a.held.now) {
        (Some(moved), _) => std::fs::rename(moved, &path),
        (None, Some(now)) => write_whole(&path, now),
        (None, None) => Ok(()),
    }
}

fn discard(a: &Aside) {
    if let Some(moved) = &a.moved_to {
        let gone = match std::fs::symlink_metadata(moved) {
            Ok(m) if m.is_dir() => std::fs::remove_dir_all(moved),
            Ok(_) => std::fs::remove_file(moved),
            Err(_) => Ok(()),
        };
        let _ = gone;
    }
}

/// `root/rel`, refusing a path that leads through a link (nothing of the call runs any
/// more, but a link planted earlier must not move a write out of the workspace).
fn checked(root: &Path, rel: &Path) -> std::io::Result<PathBuf> {
    let mut at = root.to_path_buf();
    let parts: Vec<_> = rel.iter().collect();
    for part in &parts[..parts.len().saturating_sub(1)] {
        at.push(part);
        if std::fs::symlink_metadata(&at)?.file_type().is_symlink() {
            return Err(std::io::Error::other(format!("{} is a link", at.display())));
        }
    }
    Ok(root.join(rel))
}

/// Replaces the file at `path` whole (a temporary file beside it, then a rename), so a link
/// there is replaced, not followed.
fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let temp = path.with_file_name(format!(
        ".paddock-restore-{}-{}",
        std::process::id(),
        path.file_name().unwrap_or_default().to_string_lossy()
    ));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)?;
    let result = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::rename(&temp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}
