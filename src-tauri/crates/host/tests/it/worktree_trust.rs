//! A cloned repository's `worktree.setup` and `worktree.copy` wait for the user's trust, as
//! every setting that runs or reads something does: before it, a new worktree gets no copied
//! file and no setup runs (the marker stays absent); once trusted, both happen. Without the
//! gate in `trust::gated::restrict`, the first half fails.
#![cfg(target_os = "linux")]

use std::sync::Arc;

use paddock_core::FnSink;
use paddock_host::session::SessionStore;
use paddock_host::trust::{TrustPolicy, TrustStore};
use paddock_host::{AskPolicy, EnvKeys, NewWorktree, RunOptions, RunService};

use crate::git;

#[tokio::test]
async fn a_folders_setup_and_copy_wait_for_trust() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let base = dir.path().canonicalize().unwrap();
    let project = base.join("cloned");
    std::fs::create_dir_all(project.join(".paddock")).unwrap();
    std::fs::write(
        project.join(".paddock/settings.json"),
        r#"{"version": 1, "worktree": {"setup": "touch SETUP-RAN", "copy": [".env"]}}"#,
    )
    .unwrap();
    std::fs::write(project.join(".gitignore"), ".env\n").unwrap();
    std::fs::write(project.join(".env"), "TOKEN=secret\n").unwrap();
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["add", "."]);
    git(&project, &["commit", "-qm", "base"]);
    let service = RunService::new(
        SessionStore::new(base.join("data/sessions")),
        Arc::new(EnvKeys),
        TrustStore::new(base.join("config/trust.json")),
    );
    let quiet = Arc::new(FnSink(|_| {}));
    let make = |name: &str| NewWorktree {
        name: Some(name.into()),
        ..NewWorktree::default()
    };

    // Untrusted: the app's safe defaults drop both.
    let made = service
        .create_worktree(&project, make("before"), TrustPolicy::SafeDefaults)
        .unwrap();
    assert!(made.copied.paths.is_empty(), "{:?}", made.copied);
    let checkout = std::path::PathBuf::from(&made.worktree.path);
    assert!(!checkout.join(".env").exists());
    let settings = service
        .resolve(&project, &RunOptions::default(), TrustPolicy::SafeDefaults)
        .unwrap();
    let setup = service
        .setup_worktree(
            &project,
            "before",
            &settings,
            AskPolicy::HeadlessDeny,
            quiet.clone(),
        )
        .await
        .unwrap();
    assert!(setup.is_none());
    assert!(
        !checkout.join("SETUP-RAN").exists(),
        "an untrusted setup ran"
    );
    // Headless, untrusted settings refuse the worktree outright, naming the fields.
    let refused = service
        .create_worktree(&project, make("headless"), TrustPolicy::Refuse)
        .unwrap_err();
    assert!(refused.to_string().contains("worktree.setup"), "{refused}");

    // Trusted: copied in, and the setup runs (inside the checkout's wall).
    let written = paddock_host::settings::load(&project).unwrap();
    service.trust().trust(&project, &written).unwrap();
    let made = service
        .create_worktree(&project, make("after"), TrustPolicy::SafeDefaults)
        .unwrap();
    assert_eq!(made.copied.paths, [".env"]);
    let settings = service
        .resolve(&project, &RunOptions::default(), TrustPolicy::SafeDefaults)
        .unwrap();
    let setup = service
        .setup_worktree(&project, "after", &settings, AskPolicy::HeadlessDeny, quiet)
        .await
        .unwrap()
        .unwrap();
    assert!(setup.ok, "{}", setup.output);
    assert!(
        std::path::Path::new(&made.worktree.path)
            .join("SETUP-RAN")
            .exists()
    );
}
