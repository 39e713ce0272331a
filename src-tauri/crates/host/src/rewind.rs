//! Rewinding a session to before a prompt or a turn: its files (from the checkpoint recorded
//! there), its conversation, or both; and undoing the last rewind. The session file stays
//! append-only: a rewind is a `rewound` event. Putting files back goes through the store's
//! journal, so a crash mid-rewind is finished by the next Paddock that opens the project.

use std::path::Path;
use std::sync::Arc;

use paddock_guard::PathGuard;
use paddock_protocol::{AgentEvent, FileChange, RewindInfo, RewindMode, RewindPreview};
use paddock_session::{LastRewind, LoadedSession, RewindPoint};
use serde::{Deserialize, Serialize};

use crate::checkpoints::{ProjectCheckpoints, workspace_name};
use crate::error::HistoryError;
use crate::{HostError, RunService, workspace};

/// Where to rewind a session to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewindRequest {
    pub session: String,
    /// 1-based, in the order the session's prompts ran.
    pub prompt: u32,
    /// 0: before the prompt; else before that turn's tools.
    pub turn: u32,
    pub mode: RewindMode,
}

/// What the journal carries so a crash after the files moved still records the rewind.
#[derive(Debug, Serialize, Deserialize)]
struct Note {
    session: String,
    info: RewindInfo,
}

impl RunService {
    /// The points a session can be rewound to, in order.
    pub fn rewind_points(
        &self,
        project: &Path,
        session: &str,
    ) -> Result<Vec<RewindPoint>, HostError> {
        Ok(self.store().load(project, session)?.points)
    }

    /// What rewinding would do, without doing it.
    pub fn rewind_preview(
        &self,
        project: &Path,
        request: &RewindRequest,
    ) -> Result<RewindPreview, HostError> {
        let (checkpoints, guard) = self.rewind_setup(project, &request.session)?;
        let session = self.store().load(project, &request.session)?;
        let point = find_point(&session, request)?;
        conversation_point(&point, request.mode)?;
        let files = match target_of(&point, request.mode, &guard)? {
            Some(target) => {
                let (now, _) = checkpoints.snapshot(&guard)?;
                checkpoints.store().changes(&now.id, &target)?
            }
            None => Vec::new(),
        };
        Ok(RewindPreview {
            files,
            messages_dropped: dropped(&session, &point, request.mode),
        })
    }

    /// Rewinds the session; returns what was done (also appended to the session).
    pub fn rewind(&self, project: &Path, request: &RewindRequest) -> Result<RewindInfo, HostError> {
        let (checkpoints, guard) = self.rewind_setup(project, &request.session)?;
        self.refuse_if_running(project, &request.session)?;
        let session = self.store().load(project, &request.session)?;
        let point = find_point(&session, request)?;
        let keep = conversation_point(&point, request.mode)?;
        let target = target_of(&point, request.mode, &guard)?;
        let info = RewindInfo {
            id: rewind_id(),
            prompt: request.prompt,
            turn: request.turn,
            files: request.mode.files(),
            conversation: request.mode.conversation(),
            messages: keep.unwrap_or_else(|| count(session.history.len())),
            before: String::new(),
            workspace: String::new(),
            undoes: None,
            changed: Vec::new(),
        };
        self.apply(
            project,
            &checkpoints,
            &guard,
            &request.session,
            info,
            target,
        )
    }

    /// Undoes the session's last rewind (itself a rewind, so it can be undone in turn).
    pub fn undo_rewind(&self, project: &Path, session_id: &str) -> Result<RewindInfo, HostError> {
        let (checkpoints, guard) = self.rewind_setup(project, session_id)?;
        self.refuse_if_running(project, session_id)?;
        let session = self.store().load(project, session_id)?;
        let last = undoable(session.last_rewind)?;
        let undone = last.info;
        let target = if undone.files {
            check_workspace(&undone.workspace, &guard)?;
            Some(undone.before.clone())
        } else {
            None
        };
        let info = RewindInfo {
            id: rewind_id(),
            prompt: undone.prompt,
            turn: undone.turn,
            files: undone.files,
            conversation: undone.conversation,
            messages: last.history_before,
            before: String::new(),
            workspace: String::new(),
            undoes: Some(undone.id),
            changed: Vec::new(),
        };
        self.apply(project, &checkpoints, &guard, session_id, info, target)
    }

    /// What undoing the session's last rewind would do to the files; changes nothing. The
    /// conversation goes back to as it was before that rewind (nothing is set aside).
    pub fn undo_preview(
        &self,
        project: &Path,
        session_id: &str,
    ) -> Result<RewindPreview, HostError> {
        let (checkpoints, guard) = self.rewind_setup(project, session_id)?;
        let session = self.store().load(project, session_id)?;
        let undone = undoable(session.last_rewind)?.info;
        let files = if undone.files {
            check_workspace(&undone.workspace, &guard)?;
            let (now, _) = checkpoints.snapshot(&guard)?;
            checkpoints.store().changes(&now.id, &undone.before)?
        } else {
            Vec::new()
        };
        Ok(RewindPreview {
            files,
            messages_dropped: 0,
        })
    }

    /// One file's change between two checkpoints (a row of a run's Changes list).
    pub fn checkpoint_diff(
        &self,
        project: &Path,
        from: &str,
        to: &str,
        path: &str,
    ) -> Result<Option<FileChange>, HostError> {
        let checkpoints = self.checkpoints(project)?;
        let found = checkpoints.store().change_of(from, to, path);
        if found.is_ok() {
            return Ok(found?);
        }
        // A run in a worktree recorded its checkpoints in the worktree's own store.
        for info in self.worktrees(project).unwrap_or_default() {
            let Ok(dir) = crate::project::canonical_dir(Path::new(&info.path)) else {
                continue;
            };
            if let Ok(change) = self.checkpoints(&dir)?.store().change_of(from, to, path) {
                return Ok(change);
            }
        }
        Ok(found?)
    }

    /// Finishes a rewind a crash interrupted (files put back, the event recorded once).
    /// Every entry point that reads or changes the workspace calls it first.
    pub fn recover_rewind(&self, project: &Path) -> Result<Option<RewindInfo>, HostError> {
        let checkpoints = self.checkpoints(project)?;
        if checkpoints.store().pending()?.is_none() {
            return Ok(None);
        }
        let guard = workspace::guard_for(self.trust(), project);
        let Some(note) = checkpoints.store().recover(&guard)? else {
            return Ok(None);
        };
        let note: Note = serde_json::from_value(note)
            .map_err(|e| HostError::Internal(format!("the rewind journal is damaged: {e}")))?;
        self.record_once(project, &note)?;
        checkpoints.store().finish()?;
        tracing::warn!(session = %note.session, "finished a rewind a crash interrupted");
        Ok(Some(note.info))
    }

    /// The checkpoints and the guard of the folder the session works in: the project's, or
    /// its worktree's checkout (a rewind there a crash interrupted is finished first).
    fn rewind_setup(
        &self,
        project: &Path,
        session: &str,
    ) -> Result<(Arc<ProjectCheckpoints>, PathGuard), HostError> {
        self.recover_rewind(project)?;
        let Some(worktree) = self.session_worktree(project, session)? else {
            return Ok((
                self.checkpoints(project)?,
                workspace::guard_for(self.trust(), project),
            ));
        };
        let dir = crate::project::canonical_dir(&worktree.project_dir())?;
        let mode = workspace::mode_of(self.trust(), project);
        let guard = PathGuard::new(mode.root(&dir)).inside(dir.clone());
        let checkpoints = self.checkpoints(&dir)?;
        if checkpoints.store().pending()?.is_some()
            && let Some(note) = checkpoints.store().recover(&guard)?
        {
            let note: Note = serde_json::from_value(note)
                .map_err(|e| HostError::Internal(format!("the rewind journal is damaged: {e}")))?;
            self.record_once(project, &note)?;
            checkpoints.store().finish()?;
        }
        Ok((checkpoints, guard))
    }

    fn refuse_if_running(&self, project: &Path, session: &str) -> Result<(), HostError> {
        if self.runs().is_running(project, session) || self.runs().any_running(project) {
            return Err(HostError::Busy(
                "a prompt is running in this project; stop it or wait for it to finish before \
                 rewinding"
                    .into(),
            ));
        }
        Ok(())
    }

    /// Records the state now (for undo), puts the files back under the journal, records the
    /// rewind in the session, then closes the journal.
    fn apply(
        &self,
        project: &Path,
        checkpoints: &ProjectCheckpoints,
        guard: &PathGuard,
        session: &str,
        mut info: RewindInfo,
        target: Option<String>,
    ) -> Result<RewindInfo, HostError> {
        let Some(target) = target else {
            self.store()
                .append_event(project, session, AgentEvent::Rewound(info.clone()))?;
            return Ok(info);
        };
        let (now, _) = checkpoints.snapshot(guard)?;
        info.before = now.id.clone();
        info.workspace = workspace_name(guard.root());
        info.changed = checkpoints.store().summary(&now.id, &target)?;
        let note = Note {
            session: session.to_owned(),
            info,
        };
        let value = serde_json::to_value(&note)
            .map_err(|e| HostError::Internal(format!("the rewind could not be noted: {e}")))?;
        checkpoints.store().restore(guard, &target, value)?;
        self.record_once(project, &note)?;
        checkpoints.store().finish()?;
        Ok(note.info)
    }

    /// Appends the rewind to its session unless it is there already (a recovery after the
    /// append).
    fn record_once(&self, project: &Path, note: &Note) -> Result<(), HostError> {
        let session = self.store().load(project, &note.session)?;
        let recorded = session
            .events
            .iter()
            .any(|e| matches!(e, AgentEvent::Rewound(r) if r.id == note.info.id));
        if !recorded {
            self.store().append_event(
                project,
                &note.session,
                AgentEvent::Rewound(note.info.clone()),
            )?;
        }
        Ok(())
    }
}

fn find_point(session: &LoadedSession, request: &RewindRequest) -> Result<RewindPoint, HostError> {
    session
        .points
        .iter()
        .find(|p| p.prompt == request.prompt && p.turn == request.turn)
        .cloned()
        .ok_or_else(|| {
            let prompts = session.points.iter().map(|p| p.prompt).max().unwrap_or(0);
            HostError::NotFound(if request.prompt == 0 || request.prompt > prompts {
                format!(
                    "this session has {prompts} prompt{}; there is no prompt {}",
                    if prompts == 1 { "" } else { "s" },
                    request.prompt
                )
            } else {
                format!(
                    "prompt {} has no turn {} to rewind to",
                    request.prompt, request.turn
                )
            })
        })
}

/// The checkpoint to put the files back to, when the mode moves files.
fn target_of(
    point: &RewindPoint,
    mode: RewindMode,
    guard: &PathGuard,
) -> Result<Option<String>, HostError> {
    if !mode.files() {
        return Ok(None);
    }
    let Some((checkpoint, workspace)) = &point.checkpoint else {
        return Err(HistoryError::NotRecorded {
            point: point_name(point),
        }
        .into());
    };
    check_workspace(workspace, guard)?;
    Ok(Some(checkpoint.clone()))
}

/// The session's last rewind, when it can still be undone.
fn undoable(last: Option<LastRewind>) -> Result<LastRewind, HostError> {
    let Some(last) = last else {
        return Err(HistoryError::NothingToUndo.into());
    };
    if last.prompts_after > 0 {
        return Err(HistoryError::UndoTooLate.into());
    }
    Ok(last)
}

/// A checkpoint is put back only in the folder it was taken of: the settings may have moved
/// the workspace since, and restoring there would delete what is not in the checkpoint.
fn check_workspace(recorded: &str, guard: &PathGuard) -> Result<(), HostError> {
    let now = workspace_name(guard.root());
    if recorded == now {
        Ok(())
    } else {
        Err(HistoryError::OtherWorkspace {
            recorded: recorded.to_owned(),
            now,
        }
        .into())
    }
}

fn dropped(session: &LoadedSession, point: &RewindPoint, mode: RewindMode) -> u32 {
    match (mode.conversation(), point.messages) {
        (true, Some(keep)) => count(session.history.len()).saturating_sub(keep),
        _ => 0,
    }
}

/// How many messages a conversation rewind keeps (`None` when the mode leaves the
/// conversation alone); refused where a compaction has since summarized that point.
fn conversation_point(point: &RewindPoint, mode: RewindMode) -> Result<Option<u32>, HostError> {
    if !mode.conversation() {
        return Ok(None);
    }
    point.messages.map(Some).ok_or_else(|| {
        HistoryError::Compacted {
            point: point_name(point),
        }
        .into()
    })
}

/// "before prompt 2", "before turn 3 of prompt 2": as the user names points.
fn point_name(point: &RewindPoint) -> String {
    match point.turn {
        0 => format!("before prompt {}", point.prompt),
        t => format!("before turn {t} of prompt {}", point.prompt),
    }
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Unique enough within a session: time and process.
fn rewind_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("rewind-{nanos:x}-{:x}", std::process::id())
}
