//! `paddock worktree` and `exec --worktree`: sessions' own checkouts, listed, committed,
//! merged, kept or discarded from a terminal (the same host functions as the app).

use std::path::Path;
use std::sync::Arc;

use paddock_host::session::SessionStore;
use paddock_host::trust::TrustStore;
use paddock_host::{RunService, canonical_dir};
use paddock_protocol::{
    MergeOutcome, WorktreeCreated, WorktreeInfo, WorktreeLanding, WorktreeState,
};
use serde_json::json;

use crate::cli::WorktreeAction;
use crate::exit::{CliError, Code};
use crate::files::project_dir;
use crate::keys::CliKeys;
use crate::output;

pub async fn run(project: Option<&Path>, action: &WorktreeAction) -> Result<Code, CliError> {
    let root = canonical_dir(&project_dir(project)?)?;
    let service = RunService::new(
        SessionStore::open_default()?,
        Arc::new(CliKeys),
        TrustStore::open_default()?,
    );
    match action {
        WorktreeAction::List { json } => list(&service, &root, *json),
        WorktreeAction::Changes { session, json } => changes(&service, &root, session, *json),
        WorktreeAction::Commit {
            session,
            message,
            propose,
        } => commit(&service, &root, session, message.as_ref(), *propose).await,
        WorktreeAction::Merge {
            session,
            into,
            message,
            json,
            accept_trust_changes,
        } => {
            let landing = WorktreeLanding::Merge {
                into: into.clone(),
                message: message.clone(),
                accept_trust_changes: *accept_trust_changes,
            };
            let landed = service.land_worktree(&root, session, landing)?;
            let Some(outcome) = landed.merge else {
                return Err(CliError::failure("the merge said nothing"));
            };
            if *json {
                output::json_line(&json!(outcome));
            }
            Ok(say_merge(&outcome))
        }
        WorktreeAction::Keep {
            session,
            accept_trust_changes,
        } => {
            let landing = WorktreeLanding::Keep {
                accept_trust_changes: *accept_trust_changes,
            };
            let landed = service.land_worktree(&root, session, landing)?;
            if let Some(info) = landed.worktree {
                output::err(&format!(
                    "paddock: kept branch {}; its checkout is removed",
                    info.branch
                ));
            }
            Ok(Code::Success)
        }
        WorktreeAction::Diff { session, paths } => diff(&service, &root, session, paths),
        WorktreeAction::Discard { session, yes } => discard(&service, &root, session, *yes),
    }
}

/// `paddock worktree list`.
fn list(service: &RunService, root: &Path, json: bool) -> Result<Code, CliError> {
    let list = service.worktrees(root)?;
    if json {
        output::json_line(&json!(list));
    } else if list.is_empty() {
        output::err(
            "paddock: no worktrees in this project (start one with paddock exec --worktree)",
        );
    } else {
        for w in &list {
            output::out(&format!("{}\n", line(w)));
        }
    }
    Ok(Code::Success)
}

/// `paddock worktree changes`: commits beyond the base and files not committed.
fn changes(service: &RunService, root: &Path, session: &str, json: bool) -> Result<Code, CliError> {
    let changes = service.worktree_changes(root, session)?;
    if json {
        output::json_line(&json!(changes));
    } else {
        output::out(&format!(
            "{} commit(s) beyond the base, {} file(s) not committed\n",
            changes.commits,
            changes.uncommitted.len()
        ));
        for f in &changes.files {
            output::out(&format!("  {f}\n"));
        }
    }
    Ok(Code::Success)
}

/// `paddock worktree commit`, with the model's message when `--propose` asks for one.
async fn commit(
    service: &RunService,
    root: &Path,
    session: &str,
    message: Option<&String>,
    propose: bool,
) -> Result<Code, CliError> {
    let mut message = message.cloned();
    if propose {
        let live =
            paddock_host::LiveProject::new(root.to_path_buf(), paddock_host::ServerPath::Inherit);
        let proposed = service.propose_commit_message(&live, session).await;
        live.shutdown().await;
        let proposed = proposed?;
        output::err(&format!("paddock: the model proposes:\n{proposed}"));
        message = Some(proposed);
    }
    let landed = service.land_worktree(root, session, WorktreeLanding::Commit { message })?;
    match landed.commit {
        Some(c) => output::err(&format!("paddock: committed {}", short(&c))),
        None => output::err("paddock: nothing to commit"),
    }
    Ok(Code::Success)
}

/// `paddock worktree diff`: the changes of `paths` (all changed files when none).
fn diff(
    service: &RunService,
    root: &Path,
    session: &str,
    paths: &[String],
) -> Result<Code, CliError> {
    let paths = if paths.is_empty() {
        service.worktree_changes(root, session)?.files
    } else {
        paths.to_vec()
    };
    let mut text = String::new();
    for path in &paths {
        if let Some(change) = service.worktree_diff(root, session, path)? {
            text.push_str(&paddock_host::unified_diff(&change));
        }
    }
    output::out(&text);
    Ok(Code::Success)
}

/// `paddock worktree discard`: refused while commits or files would be lost, unless `--yes`.
fn discard(service: &RunService, root: &Path, session: &str, yes: bool) -> Result<Code, CliError> {
    let lost = service.worktree_losses(root, session)?;
    let at_stake = lost.commits > 0 || !lost.uncommitted.is_empty();
    if at_stake && !yes {
        let mut text = format!(
            "discarding '{session}' loses {} commit(s) not merged and {} file(s) not committed:",
            lost.commits,
            lost.uncommitted.len()
        );
        for f in &lost.uncommitted {
            text.push_str(&format!("\n  {f}"));
        }
        text.push_str("\npass --yes to discard them, or merge or keep the branch first");
        return Err(CliError::usage(text));
    }
    let info = service.worktree(root, session)?.info().clone();
    service.land_worktree(root, session, WorktreeLanding::Discard)?;
    output::err(&format!(
        "paddock: discarded worktree {} (branch {} and its checkout removed)",
        info.name, info.branch
    ));
    Ok(Code::Success)
}

fn short(commit: &str) -> &str {
    commit.get(..10).unwrap_or(commit)
}

fn line(w: &WorktreeInfo) -> String {
    let state = match &w.state {
        WorktreeState::Active => "active".to_owned(),
        WorktreeState::Merged { into, commit } => format!("merged into {into} ({})", short(commit)),
        WorktreeState::Kept => "kept (branch only)".to_owned(),
        WorktreeState::Discarded => "discarded".to_owned(),
    };
    format!(
        "{}\t{}\t{}\tsession {}\t{}",
        w.name,
        w.branch,
        state,
        w.session.as_deref().unwrap_or("-"),
        w.path
    )
}

fn say_merge(outcome: &MergeOutcome) -> Code {
    match outcome {
        MergeOutcome::FastForward { into, commit } => {
            output::err(&format!(
                "paddock: {into} fast-forwarded to {}",
                short(commit)
            ));
            Code::Success
        }
        MergeOutcome::Merged { into, commit } => {
            output::err(&format!("paddock: merged into {into} as {}", short(commit)));
            Code::Success
        }
        MergeOutcome::UpToDate { into } => {
            output::err(&format!(
                "paddock: {into} already has everything on the branch"
            ));
            Code::Success
        }
        MergeOutcome::Conflicts { into, files } => {
            output::err(&format!(
                "paddock: merging into {into} conflicts in {} file(s); nothing was changed:",
                files.len()
            ));
            for f in files {
                output::err(&format!("  {f}"));
            }
            output::err(
                "paddock: resume the session and ask it to merge the branch in (git fetch origin; git merge origin/BRANCH), then merge again",
            );
            Code::Failure
        }
    }
}

/// `exec --worktree`: where the session works, and what was copied in.
pub fn say_created(made: &WorktreeCreated, json: bool) {
    let w = &made.worktree;
    if json {
        output::json_line(&json!({ "type": "worktree", "worktree": w, "copied": made.copied }));
        return;
    }
    output::err(&format!(
        "paddock: worktree {} on branch {} (from {}) at {}",
        w.name, w.branch, w.base_ref, w.path
    ));
    if !made.copied.paths.is_empty() {
        output::err(&format!(
            "paddock: copied in {} ({} file(s))",
            made.copied.paths.join(", "),
            made.copied.files
        ));
    }
    for s in &made.copied.skipped {
        output::err(&format!("paddock: not copied: {s}"));
    }
}

/// `worktree.setup` in the new checkout, inside its wall: said before, its output after,
/// its failure said (the session runs all the same: the agent may fix what failed).
pub async fn setup(
    service: &RunService,
    root: &Path,
    name: &str,
    resolved: &paddock_host::Resolved,
    json: bool,
) -> Result<(), CliError> {
    let Some(command) = &resolved.settings().worktree.setup else {
        return Ok(());
    };
    output::err(&format!("paddock: setting up the worktree: {command}"));
    let refused = Arc::new(paddock_host::FnSink(|event| {
        if let paddock_protocol::AgentEvent::Connection(c) = event
            && !c.allowed
        {
            output::err(&format!(
                "paddock: setup: connection to {}:{} refused ({})",
                c.host.as_deref().unwrap_or("?"),
                c.port.unwrap_or(0),
                c.why
            ));
        }
    }));
    let report = service
        .setup_worktree(
            root,
            name,
            resolved,
            paddock_host::AskPolicy::HeadlessDeny,
            refused,
        )
        .await?;
    let Some(report) = report else {
        return Ok(());
    };
    if json {
        output::json_line(&json!({
            "type": "worktree_setup",
            "command": report.command,
            "ok": report.ok,
            "output": report.output,
        }));
    } else {
        for line in report.output.lines() {
            output::err(&format!("  | {line}"));
        }
    }
    if report.ok {
        output::err("paddock: worktree setup done");
    } else {
        output::err(
            "paddock: warning: the worktree setup failed (output above); the session runs all the same",
        );
    }
    Ok(())
}
