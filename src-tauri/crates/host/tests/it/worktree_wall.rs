//! A session in a worktree behind its own wall (issue 35), attacked the way the anchors'
//! escapes went: the main checkout and the other worktree by path, by `git -C`, by git's
//! environment variables, through a symlink the session made, the project's refs and hooks,
//! and the other checkout removed. Every attack runs first with plain `bash -c` in the same
//! checkout, where it must work (so the case can fail), then through the session's bash.
//! The session's own git still works: it commits, and the commit reaches the project.
#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use paddock_core::approval::{Approvals, AskPolicy};
use paddock_core::{NullSink, ToolContext, ToolRegistry};
use paddock_host::Resolved;
use paddock_protocol::{ProjectSettings, WorkspaceMode};
use paddock_worktree::{CreateOptions, Layout, Worktree};
use serde_json::json;

use crate::git;

fn has_ref(repo: &Path, name: &str) -> bool {
    Command::new("git")
        .args(["rev-parse", "--verify", "--quiet", name])
        .current_dir(repo)
        .output()
        .unwrap()
        .status
        .success()
}

struct Scene {
    _dir: tempfile::TempDir,
    home: PathBuf,
    main: PathBuf,
    mine: Worktree,
    other: Worktree,
    registry: ToolRegistry,
}

/// A fake home (emptied by the wall, as a real one is) holding the project and Paddock's
/// worktrees, two worktrees, and the bash of a session in the first one.
fn scene() -> Option<Scene> {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let home = dir.path().canonicalize().unwrap().join("home");
    let main = home.join("code/project");
    std::fs::create_dir_all(&main).unwrap();
    git(&main, &["init", "-q", "-b", "main"]);
    std::fs::write(main.join("app.txt"), "one\n").unwrap();
    git(&main, &["add", "."]);
    git(&main, &["commit", "-qm", "base"]);
    git(&main, &["branch", "keepme"]);
    git(&main, &["commit", "-q", "--allow-empty", "-m", "second"]);
    let layout = Layout {
        records: home.join(".local/share/paddock/worktrees/p"),
        checkouts: home.join(".local/share/paddock-worktrees/p"),
        wall: paddock_host::OwnWall::shared(),
    };
    let make = |name: &str| {
        let options = CreateOptions {
            name: Some(name.into()),
            ..CreateOptions::default()
        };
        paddock_worktree::create(&main, &layout, &options)
            .unwrap()
            .0
    };
    let (mine, other) = (make("mine"), make("other"));
    let project = Resolved::as_written(
        &main,
        ProjectSettings {
            workspace: WorkspaceMode::Project,
            ..ProjectSettings::default()
        },
    )
    .unwrap()
    .in_worktree(&mine)
    .unwrap()
    .project();
    let mut env = (*project.tool_env(Vec::new())).clone();
    env.sandbox.home = Some(home.clone());
    let status = env.sandbox_status();
    if !status.fully_confined {
        assert!(
            std::env::var("PADDOCK_REQUIRE_SANDBOX").as_deref() != Ok("1"),
            "the full sandbox is required (PADDOCK_REQUIRE_SANDBOX=1): {}",
            status.summary
        );
        eprintln!("SKIPPED: no full sandbox here: {}", status.summary);
        return None;
    }
    let mut registry = ToolRegistry::new();
    paddock_tools::register_builtin_tools(&mut registry, &Arc::new(env)).unwrap();
    Some(Scene {
        _dir: dir,
        home,
        main,
        mine,
        other,
        registry,
    })
}

impl Scene {
    async fn confined(&self, command: &str) -> String {
        let ctx = ToolContext {
            call: None,
            agent: "main".into(),
            chain: Arc::from(vec!["main".to_owned()]),
            cancel: tokio_util::sync::CancellationToken::new().into(),
            events: Arc::new(NullSink),
            approvals: Arc::new(Approvals::new(AskPolicy::HeadlessDeny)),
            grants: Arc::default(),
            writes: Arc::default(),
            approved: None,
            told: Arc::default(),
            hooks: std::sync::Arc::new(paddock_core::hooks::NoHooks),
        };
        let bash = self.registry.get("bash").unwrap().clone();
        match bash.call(&json!({ "command": command }), &ctx).await {
            Ok(out) => out.content.into_string(),
            Err(e) => format!("{e:?}"),
        }
    }

    fn plain(&self, command: &str) -> String {
        let out = Command::new("/bin/bash")
            .args(["-c", command])
            .current_dir(self.mine.checkout())
            .env("HOME", &self.home)
            .output()
            .unwrap();
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    }

    /// `command` does what `done` checks with plain bash; `undo` puts it back; through the
    /// session's bash it must not.
    async fn blocks(&self, command: &str, done: impl Fn() -> bool, undo: impl Fn()) {
        let said = self.plain(command);
        assert!(
            done(),
            "the attack does not work even without the wall, so this case proves nothing: {command}\n{said}"
        );
        undo();
        assert!(!done(), "could not undo the plain run of {command}");
        let said = self.confined(command).await;
        assert!(!done(), "the wall let it through: {command}\n{said}");
    }
}

#[tokio::test]
async fn a_worktree_session_reaches_neither_the_main_checkout_nor_the_other_worktree() {
    let Some(s) = scene() else { return };
    let (main, other) = (s.main.clone(), s.other.checkout().to_path_buf());
    let m = main.display().to_string();
    let o = other.display().to_string();
    let gone = |p: PathBuf| {
        move || {
            let _ = std::fs::remove_file(&p);
        }
    };

    // By path.
    s.blocks(
        &format!("echo pwned > {m}/by-path.txt"),
        || main.join("by-path.txt").exists(),
        gone(main.join("by-path.txt")),
    )
    .await;
    s.blocks(
        &format!("echo pwned > {o}/by-path.txt"),
        || other.join("by-path.txt").exists(),
        gone(other.join("by-path.txt")),
    )
    .await;
    // By `git -C`: a branch made in the project's repository.
    let undo_ref = |r: &'static str| {
        let main = main.clone();
        move || {
            git(&main, &["update-ref", "-d", r]);
        }
    };
    s.blocks(
        &format!("git -C {m} branch evil-c"),
        || has_ref(&main, "refs/heads/evil-c"),
        undo_ref("refs/heads/evil-c"),
    )
    .await;
    // By git's environment variables.
    s.blocks(
        &format!("GIT_DIR={m}/.git git update-ref refs/heads/evil-d HEAD"),
        || has_ref(&main, "refs/heads/evil-d"),
        undo_ref("refs/heads/evil-d"),
    )
    .await;
    // GIT_COMMON_DIR sends new objects to the project's object folder.
    let id = git(&main, &["hash-object", "--stdin"]);
    let evil = main.join(format!(".git/objects/{}/{}", &id[..2], &id[2..]));
    s.blocks(
        &format!("GIT_COMMON_DIR={m}/.git git hash-object -w --stdin < /dev/null"),
        || evil.exists(),
        gone(evil.clone()),
    )
    .await;
    let main_file = main.join("app.txt");
    s.blocks(
        &format!("GIT_DIR={m}/.git GIT_WORK_TREE={m} git rm -q app.txt"),
        || !main_file.exists(),
        || {
            git(&main, &["reset", "-q", "--hard"]);
        },
    )
    .await;
    // Through a symlink the session made in its own checkout.
    s.blocks(
        &format!("ln -sfn {m} into-main && echo pwned > into-main/via-link.txt"),
        || main.join("via-link.txt").exists(),
        gone(main.join("via-link.txt")),
    )
    .await;
    s.blocks(
        &format!("ln -sfn {o} into-other && echo pwned > into-other/via-link.txt"),
        || other.join("via-link.txt").exists(),
        gone(other.join("via-link.txt")),
    )
    .await;
    // Another branch's ref moved, by a push to the project or by its git folder.
    let base = git(&main, &["rev-parse", "keepme"]);
    let moved = || git(&main, &["rev-parse", "keepme"]) != base;
    let reset_keepme = || {
        git(&main, &["update-ref", "refs/heads/keepme", &base]);
    };
    s.blocks("git -c user.name=a -c user.email=a@b commit -q --allow-empty -m evil && git push -q -f origin HEAD:refs/heads/keepme", moved, reset_keepme).await;
    s.blocks(
        &format!("git --git-dir={m}/.git update-ref refs/heads/keepme refs/heads/main"),
        moved,
        reset_keepme,
    )
    .await;
    s.blocks(
        &format!("git --git-dir={m}/.git update-ref -d refs/heads/keepme"),
        || !has_ref(&main, "refs/heads/keepme"),
        reset_keepme,
    )
    .await;
    // A hook in the project's git folder, and its objects.
    let hook = main.join(".git/hooks/post-commit");
    s.blocks(
        &format!("mkdir -p {m}/.git/hooks && echo 'touch /tmp/owned' > {m}/.git/hooks/post-commit"),
        || hook.exists(),
        gone(hook.clone()),
    )
    .await;
    let object = main.join(".git/objects/ff/evil");
    s.blocks(
        &format!("mkdir -p {m}/.git/objects/ff && echo x > {m}/.git/objects/ff/evil"),
        || object.exists(),
        gone(object.clone()),
    )
    .await;
    // The other worktree removed (last: the plain run really removes it).
    let plain = s.plain(&format!("rm -rf {o}"));
    assert!(
        !other.exists(),
        "rm did not remove it without the wall: {plain}"
    );
    git(&main, &["branch", "-D", "-q", "paddock/other"]);
    let again = paddock_worktree::create(
        &main,
        &Layout {
            records: s.home.join("r"),
            checkouts: other.parent().unwrap().to_path_buf(),
            wall: paddock_host::OwnWall::shared(),
        },
        &CreateOptions {
            name: Some("other".into()),
            ..CreateOptions::default()
        },
    )
    .unwrap()
    .0;
    assert_eq!(again.checkout(), other);
    let said = s.confined(&format!("rm -rf {o}")).await;
    assert!(
        other.join("app.txt").exists(),
        "the wall let rm remove the other worktree: {said}"
    );
}

#[tokio::test]
async fn the_session_commits_in_its_own_checkout_and_the_commit_reaches_the_project() {
    let Some(s) = scene() else { return };
    let said = s
        .confined("echo two >> app.txt && git add app.txt && git -c user.name=a -c user.email=a@b commit -q -m 'from the wall' && git log -1 --format=%s")
        .await;
    assert!(said.contains("from the wall"), "{said}");
    // Objects borrowed from the project are read through the wall: log walks the base.
    let said = s.confined("git log --format=%s | tail -1").await;
    assert!(said.contains("base"), "{said}");
    let head = s.mine.sync().unwrap();
    assert_eq!(
        git(&s.main, &["log", "-1", "--format=%s", &head]),
        "from the wall"
    );
    assert_eq!(
        std::fs::read_to_string(s.main.join("app.txt")).unwrap(),
        "one\n",
        "the main checkout waits for a merge"
    );
}
