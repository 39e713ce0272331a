//! What file_write and file_edit share about changes: reading the file as it is for the diff,
//! the write lock's key, and the check that the change made is the change approved.

use std::io::Read;

use paddock_changes::{MAX_DIFF_BYTES, file_change};
use paddock_core::{ToolContext, ToolError, WriteScope};
use paddock_guard::{PathError, PathGuard, Root};
use paddock_protocol::{CallPreview, ChangeKind, DiffBody, FileChange};

use super::path_error;

/// The file's bytes now (`None`: it does not exist), or its size alone when it is too large
/// to diff.
pub(crate) enum Current {
    Missing,
    Bytes(Vec<u8>),
    TooLarge(u64),
}

/// Reads what is at `path` now, without following a swapped-in symlink.
pub(crate) fn current(root: &Root, path: &str) -> Result<Current, ToolError> {
    let (resolved, file) = match root.open_read(path) {
        Ok(found) => found,
        Err(PathError::NotFound { .. }) => return Ok(Current::Missing),
        Err(e) => return Err(path_error(e)),
    };
    let fail = |e: std::io::Error| ToolError::Failed(format!("'{}': {e}", resolved.display()));
    let size = file.metadata().map_err(fail)?.len();
    if size > MAX_DIFF_BYTES as u64 {
        return Ok(Current::TooLarge(size));
    }
    let mut bytes = Vec::new();
    file.take(MAX_DIFF_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(fail)?;
    Ok(Current::Bytes(bytes))
}

/// The change from what is there now to `new`, named by the resolved path.
pub(crate) fn change_to(shown: &str, now: &Current, new: &[u8]) -> FileChange {
    match now {
        Current::Missing => file_change(shown, None, Some(new)),
        Current::Bytes(old) => file_change(shown, Some(old), Some(new)),
        Current::TooLarge(size) => FileChange {
            path: shown.to_owned(),
            kind: ChangeKind::Modified,
            added: 0,
            removed: 0,
            mode: None,
            diff: DiffBody::TooLarge {
                old_bytes: *size,
                new_bytes: u64::try_from(new.len()).unwrap_or(u64::MAX),
            },
        },
    }
}

/// Calls on the same file (however spelled) wait for each other.
pub(crate) fn path_scope(guard: &PathGuard, path: &str) -> WriteScope {
    match guard.open_root().and_then(|root| root.resolve(path)) {
        Ok(resolved) => WriteScope::Path(resolved.display()),
        // The root does not exist yet (file_write creates it) or the path is refused: the
        // raw spelling still keeps identical calls apart.
        Err(_) => WriteScope::Path(path.to_owned()),
    }
}

/// The user approved a preview: the change about to be made must be that one. The file may
/// have changed while the question waited (the user's editor, another call).
pub(crate) fn check_approved(ctx: &ToolContext, change: &FileChange) -> Result<(), ToolError> {
    match ctx.approved.as_deref() {
        Some(CallPreview::Change { change: approved }) if approved != change => {
            Err(ToolError::Failed(format!(
                "'{}' changed while this call waited for approval, so the change approved is no \
                 longer the change it would make; nothing was written. Read the file again and \
                 make the change on what is there now.",
                change.path
            )))
        }
        _ => Ok(()),
    }
}

/// A preview from the outcome of working a change out.
pub(crate) fn preview_of(planned: Result<FileChange, ToolError>) -> CallPreview {
    match planned {
        Ok(change) => CallPreview::Change { change },
        Err(ToolError::Failed(message) | ToolError::InvalidInput(message)) => {
            CallPreview::WouldFail { message }
        }
    }
}
