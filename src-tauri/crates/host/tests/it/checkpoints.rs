//! The workspace's first checkpoint, taken in the background when a shell opens a project.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use paddock_host::EnvKeys;
use paddock_host::RunService;
use paddock_host::trust::TrustStore;
use paddock_protocol::{CheckpointState, CheckpointStatus};
use paddock_session::SessionStore;

/// The status once the first snapshot is no longer being taken (or after 30 s).
fn settled(service: &RunService, root: &Path) -> CheckpointStatus {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let status = service.checkpoint_status(root).unwrap();
        if status.state != CheckpointState::Recording || Instant::now() > deadline {
            return status;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn opening_a_project_records_its_workspace_in_the_background_and_says_how_far_it_got() {
    let data = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let root = project.path().canonicalize().unwrap();
    // The default workspace: the project's `.agent-workspace` folder.
    let workspace = root.join(".agent-workspace");
    std::fs::create_dir(&workspace).unwrap();
    for i in 0..40 {
        std::fs::write(workspace.join(format!("f{i}.txt")), format!("file {i}")).unwrap();
    }
    let service = RunService::new(
        SessionStore::new(data.path().join("sessions")),
        Arc::new(EnvKeys),
        TrustStore::new(data.path().join("trust.json")),
    );

    assert_eq!(
        service.checkpoint_status(&root).unwrap().state,
        CheckpointState::Idle
    );
    service.begin_checkpoints(&root).unwrap();
    let status = settled(&service, &root);
    assert_eq!(status.state, CheckpointState::Ready, "{status:?}");
    assert_eq!(status.files, 40, "{status:?}");
    assert!(status.took_ms.is_some());
    // Asking again does not start a second snapshot.
    service.begin_checkpoints(&root).unwrap();
    assert_eq!(
        service.checkpoint_status(&root).unwrap().state,
        CheckpointState::Ready
    );
}

#[test]
fn a_workspace_that_cannot_be_recorded_says_why() {
    let data = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let root = project.path().canonicalize().unwrap();
    // The configured workspace is a link out of the project: refused, not followed.
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), root.join(".agent-workspace")).unwrap();
    let service = RunService::new(
        SessionStore::new(data.path().join("sessions")),
        Arc::new(EnvKeys),
        TrustStore::new(data.path().join("trust.json")),
    );
    service.begin_checkpoints(&root).unwrap();
    let status = settled(&service, &root);
    assert_eq!(status.state, CheckpointState::Failed, "{status:?}");
    assert!(status.message.is_some_and(|m| !m.is_empty()));
}
