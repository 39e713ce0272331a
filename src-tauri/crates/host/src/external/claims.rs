//! What an external agent says its calls change, as Paddock's file changes: shown under the
//! call and on its approval card, as Paddock's own edits are. It is the agent's word; what
//! really changed is the run's changes, from Paddock's checkpoints.

use std::path::Path;

use paddock_acp::client::Diff;
use paddock_protocol::{CallPreview, FileChange};

/// Most diffs shown for one call (an agent can claim any number).
const MAX_CLAIMED_DIFFS: usize = 20;

/// The changes `diffs` describe; paths inside the workspace are shown relative to it.
pub(super) fn changes(diffs: &[Diff], workspace: &Path) -> Vec<FileChange> {
    diffs
        .iter()
        .take(MAX_CLAIMED_DIFFS)
        .map(|d| {
            let path = Path::new(&d.path);
            let shown = path
                .strip_prefix(workspace)
                .ok()
                .filter(|rel| !rel.as_os_str().is_empty())
                .unwrap_or(path);
            paddock_changes::file_change(
                &shown.to_string_lossy(),
                d.old.as_deref().map(str::as_bytes),
                Some(d.new.as_bytes()),
            )
        })
        .collect()
}

/// The preview of a permission request whose call says what it would write.
pub(super) fn preview(diffs: &[Diff], workspace: &Path) -> Option<CallPreview> {
    changes(diffs, workspace)
        .into_iter()
        .next()
        .map(|change| CallPreview::Change { change })
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_protocol::ChangeKind;

    #[test]
    fn claimed_diffs_become_changes_relative_to_the_workspace() {
        let diffs = vec![
            Diff {
                path: "/w/notes/a.txt".into(),
                old: None,
                new: "one\n".into(),
            },
            Diff {
                path: "/elsewhere/b.txt".into(),
                old: Some("x\n".into()),
                new: "y\n".into(),
            },
        ];
        let changes = changes(&diffs, Path::new("/w"));
        assert_eq!(changes[0].path, "notes/a.txt");
        assert_eq!(changes[0].kind, ChangeKind::Created);
        assert_eq!((changes[0].added, changes[0].removed), (1, 0));
        assert_eq!(changes[1].path, "/elsewhere/b.txt", "outside: shown whole");
        assert_eq!(changes[1].kind, ChangeKind::Modified);
        let many = vec![diffs[0].clone(); 100];
        assert_eq!(
            super::changes(&many, Path::new("/w")).len(),
            MAX_CLAIMED_DIFFS
        );
        assert!(matches!(
            preview(&diffs, Path::new("/w")),
            Some(CallPreview::Change { change }) if change.path == "notes/a.txt"
        ));
        assert!(preview(&[], Path::new("/w")).is_none());
    }
}
