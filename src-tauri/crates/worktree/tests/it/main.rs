//! Worktrees against real git: made, merged (fast-forward, merge commit, conflict), kept,
//! discarded, copied into, and refused when the session tampered with its git folder.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use paddock_protocol::{MergeOutcome, WorktreeState};
use paddock_worktree::{CreateOptions, Layout, WorktreeError, create, list, open};

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=T", "-c", "user.email=t@example.invalid"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

struct Fixture {
    _dir: tempfile::TempDir,
    project: PathBuf,
    layout: Layout,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    git(&project, &["init", "-q", "-b", "main"]);
    std::fs::write(project.join("app.txt"), "one\ntwo\nthree\n").unwrap();
    std::fs::write(project.join(".gitignore"), ".env\nnode_modules/\n").unwrap();
    git(&project, &["add", "."]);
    git(&project, &["commit", "-qm", "base"]);
    let project = project.canonicalize().unwrap();
    let layout = Layout {
        records: dir.path().join("data/worktrees"),
        checkouts: dir.path().join("checkouts"),
        wall: None,
    };
    Fixture {
        _dir: dir,
        project,
        layout,
    }
}

fn named(name: &str) -> CreateOptions {
    CreateOptions {
        name: Some(name.into()),
        ..CreateOptions::default()
    }
}

#[test]
fn a_worktree_is_a_branch_and_a_checkout_outside_the_project() {
    let f = fixture();
    let (wt, copied) = create(&f.project, &f.layout, &named("fix-it")).unwrap();
    assert!(copied.paths.is_empty());
    assert_eq!(wt.branch(), "paddock/fix-it");
    assert!(!wt.checkout().starts_with(&f.project));
    assert_eq!(
        std::fs::read_to_string(wt.project_dir().join("app.txt")).unwrap(),
        "one\ntwo\nthree\n"
    );
    let base = git(&f.project, &["rev-parse", "main"]);
    assert_eq!(git(&f.project, &["rev-parse", "paddock/fix-it"]), base);
    assert_eq!(
        git(wt.checkout(), &["symbolic-ref", "--short", "HEAD"]),
        "paddock/fix-it"
    );
    // Objects are borrowed, not copied: the clone's own object folder holds no pack.
    let alternates =
        std::fs::read_to_string(wt.checkout().join(".git/objects/info/alternates")).unwrap();
    assert_eq!(Path::new(alternates.trim()), f.project.join(".git/objects"));
    assert!(
        !wt.checkout().join(".git/hooks").exists(),
        "no template hooks"
    );
    let listed = list(&f.layout).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].info().state, WorktreeState::Active);
    // The same name again is refused; a derived name steps aside.
    assert!(matches!(
        create(&f.project, &f.layout, &named("fix-it")),
        Err(WorktreeError::Exists { .. })
    ));
    let (other, _) = create(
        &f.project,
        &f.layout,
        &CreateOptions {
            hint: Some("Fix it!".into()),
            ..CreateOptions::default()
        },
    )
    .unwrap();
    assert_eq!(other.name(), "fix-it-2");
    assert!(matches!(
        create(&f.project, &f.layout, &named("Bad/Name")),
        Err(WorktreeError::BadName { .. })
    ));
    assert!(matches!(
        create(
            &f.project,
            &f.layout,
            &CreateOptions {
                base_ref: Some("nope".into()),
                ..named("x")
            }
        ),
        Err(WorktreeError::BadBase { .. })
    ));
    assert!(
        git(&f.project, &["branch", "--list", "paddock/x"]).is_empty(),
        "a failed create leaves no branch"
    );
}

#[test]
fn two_sessions_edit_one_file_the_first_merges_the_second_conflicts_and_nothing_moves() {
    let f = fixture();
    let (mut a, _) = create(&f.project, &f.layout, &named("a")).unwrap();
    let (mut b, _) = create(&f.project, &f.layout, &named("b")).unwrap();
    std::fs::write(a.project_dir().join("app.txt"), "one\nTWO from a\nthree\n").unwrap();
    std::fs::write(b.project_dir().join("app.txt"), "one\ntwo from b\nthree\n").unwrap();
    std::fs::write(b.project_dir().join("new.txt"), "b's file\n").unwrap();
    let changes = b.changes().unwrap();
    assert_eq!(changes.files, ["app.txt", "new.txt"]);
    assert_eq!(changes.commits, 0);
    // Untouched until a merge.
    assert_eq!(
        std::fs::read_to_string(f.project.join("app.txt")).unwrap(),
        "one\ntwo\nthree\n"
    );
    let main_before = git(&f.project, &["rev-parse", "main"]);

    let merged = a.merge(None, "a's work").unwrap();
    let MergeOutcome::FastForward { into, commit } = merged else {
        panic!("{merged:?}")
    };
    assert_eq!(into, "main");
    assert_eq!(git(&f.project, &["rev-parse", "main"]), commit);
    assert_eq!(
        std::fs::read_to_string(f.project.join("app.txt")).unwrap(),
        "one\nTWO from a\nthree\n",
        "the checked-out branch moved with its files"
    );
    assert_eq!(git(&f.project, &["status", "--porcelain"]), "");
    assert!(matches!(
        open(&f.layout, "a").unwrap().info().state,
        WorktreeState::Merged { .. }
    ));

    let main_after_a = git(&f.project, &["rev-parse", "main"]);
    assert_ne!(main_after_a, main_before);
    let outcome = b.merge(None, "b's work").unwrap();
    assert_eq!(
        outcome,
        MergeOutcome::Conflicts {
            into: "main".into(),
            files: vec!["app.txt".into()]
        }
    );
    assert_eq!(
        git(&f.project, &["rev-parse", "main"]),
        main_after_a,
        "a conflict moves nothing"
    );
    assert_eq!(git(&f.project, &["status", "--porcelain"]), "");
    assert_eq!(
        open(&f.layout, "b").unwrap().info().state,
        WorktreeState::Active
    );
    // b's work was committed on its branch and brought over all the same.
    assert_eq!(git(&f.project, &["show", "paddock/b:new.txt"]), "b's file");
}

#[test]
fn a_branch_that_does_not_conflict_gets_a_merge_commit_and_a_branch_not_checked_out_moves_by_ref() {
    let f = fixture();
    git(&f.project, &["branch", "release"]);
    let (mut a, _) = create(&f.project, &f.layout, &named("a")).unwrap();
    std::fs::write(a.project_dir().join("a.txt"), "from a\n").unwrap();
    std::fs::write(f.project.join("main.txt"), "on main\n").unwrap();
    git(&f.project, &["add", "main.txt"]);
    git(&f.project, &["commit", "-qm", "main moves on"]);
    let outcome = a.merge(None, "a").unwrap();
    let MergeOutcome::Merged { commit, .. } = outcome else {
        panic!("{outcome:?}")
    };
    assert_eq!(
        git(&f.project, &["rev-parse", &format!("{commit}^2")]),
        git(&f.project, &["rev-parse", "paddock/a"])
    );
    assert_eq!(
        std::fs::read_to_string(f.project.join("a.txt")).unwrap(),
        "from a\n"
    );
    // Into a branch nobody has checked out: the ref moves, the checkout stays as it is.
    let head = git(&f.project, &["rev-parse", "HEAD"]);
    let outcome = a.merge(Some("release"), "a").unwrap();
    assert!(
        matches!(outcome, MergeOutcome::FastForward { .. }),
        "{outcome:?}"
    );
    assert_eq!(git(&f.project, &["rev-parse", "HEAD"]), head);
    assert_eq!(git(&f.project, &["show", "release:a.txt"]), "from a");
    assert!(matches!(
        a.merge(Some("paddock/a"), "x"),
        Err(WorktreeError::BadBranch { .. })
    ));
    assert!(matches!(
        a.merge(Some("nope"), "x"),
        Err(WorktreeError::BadBranch { .. })
    ));
}

#[test]
fn local_changes_in_the_way_refuse_the_merge_whole() {
    let f = fixture();
    let (mut a, _) = create(&f.project, &f.layout, &named("a")).unwrap();
    std::fs::write(a.project_dir().join("app.txt"), "from a\n").unwrap();
    std::fs::write(f.project.join("app.txt"), "the user's edit\n").unwrap();
    let main = git(&f.project, &["rev-parse", "main"]);
    let err = a.merge(None, "a").unwrap_err();
    assert!(matches!(err, WorktreeError::LocalChanges { .. }), "{err}");
    assert!(err.to_string().contains("app.txt"), "{err}");
    assert_eq!(git(&f.project, &["rev-parse", "main"]), main);
    assert_eq!(
        std::fs::read_to_string(f.project.join("app.txt")).unwrap(),
        "the user's edit\n"
    );
}

#[test]
fn keep_leaves_the_branch_discard_removes_everything_and_says_what_was_lost() {
    let f = fixture();
    let (mut a, _) = create(&f.project, &f.layout, &named("a")).unwrap();
    std::fs::write(a.project_dir().join("a.txt"), "a\n").unwrap();
    let head = a.keep("kept work").unwrap();
    assert!(!a.checkout().exists());
    assert_eq!(git(&f.project, &["rev-parse", "paddock/a"]), head);
    assert_eq!(
        git(&f.project, &["log", "-1", "--format=%s", "paddock/a"]),
        "kept work"
    );
    assert_eq!(
        open(&f.layout, "a").unwrap().info().state,
        WorktreeState::Kept
    );

    let (b, _) = create(&f.project, &f.layout, &named("b")).unwrap();
    std::fs::write(b.project_dir().join("b.txt"), "b\n").unwrap();
    b.commit("one commit").unwrap();
    std::fs::write(b.project_dir().join("c.txt"), "c\n").unwrap();
    let lost = b.would_lose().unwrap();
    assert_eq!(
        (lost.commits, lost.uncommitted.clone()),
        (1, vec!["c.txt".to_owned()])
    );
    let checkout = b.checkout().to_path_buf();
    assert_eq!(b.discard().unwrap(), lost);
    assert!(!checkout.exists());
    assert!(git(&f.project, &["branch", "--list", "paddock/b"]).is_empty());
    assert!(matches!(
        open(&f.layout, "b"),
        Err(WorktreeError::Unknown { .. })
    ));
    assert_eq!(git(&f.project, &["status", "--porcelain"]), "");
}

#[test]
fn copy_brings_untracked_files_and_folders_never_a_link_and_never_through_one() {
    let f = fixture();
    std::fs::write(f.project.join(".env"), "TOKEN=local\n").unwrap();
    std::fs::create_dir_all(f.project.join("node_modules/left-pad/bin")).unwrap();
    std::fs::write(
        f.project.join("node_modules/left-pad/index.js"),
        "module.exports = 1;\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(
        "../index.js",
        f.project.join("node_modules/left-pad/bin/lp"),
    )
    .unwrap();
    let secret = f.project.parent().unwrap().join("secret.txt");
    std::fs::write(&secret, "do not copy\n").unwrap();
    std::os::unix::fs::symlink(&secret, f.project.join("linked.env")).unwrap();
    // A committed link where a copied file would go: the copy must not write through it.
    let outside = f.project.parent().unwrap().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, f.project.join("conf")).unwrap();
    git(&f.project, &["add", "conf"]);
    git(&f.project, &["commit", "-qm", "link"]);
    std::fs::remove_file(f.project.join("conf")).unwrap();
    std::fs::create_dir(f.project.join("conf")).unwrap();
    std::fs::write(f.project.join("conf/local.json"), "{}\n").unwrap();

    let globs = [
        ".env",
        "node_modules",
        "*.env",
        "conf/local.json",
        "app.txt",
    ]
    .map(String::from)
    .to_vec();
    let (wt, copied) = create(
        &f.project,
        &f.layout,
        &CreateOptions {
            copy: globs,
            ..named("c")
        },
    )
    .unwrap();
    let dir = wt.project_dir();
    assert_eq!(
        std::fs::read_to_string(dir.join(".env")).unwrap(),
        "TOKEN=local\n"
    );
    assert_eq!(
        std::fs::read_link(dir.join("node_modules/left-pad/bin/lp")).unwrap(),
        Path::new("../index.js")
    );
    assert!(dir.join("node_modules/left-pad/index.js").is_file());
    assert!(
        copied.paths.contains(&"node_modules/".to_owned()),
        "{copied:?}"
    );
    assert!(
        std::fs::symlink_metadata(dir.join("linked.env")).is_err(),
        "a linked file is not copied"
    );
    assert!(
        copied
            .skipped
            .iter()
            .any(|s| s.starts_with("linked.env: a link")),
        "{copied:?}"
    );
    assert!(
        !outside.join("local.json").exists(),
        "nothing written through the committed link"
    );
    assert!(
        copied
            .skipped
            .iter()
            .any(|s| s.starts_with("conf/local.json:")),
        "{copied:?}"
    );
    assert!(
        copied
            .skipped
            .iter()
            .any(|s| s.starts_with("app.txt: already")),
        "{copied:?}"
    );
    assert_eq!(
        copied.files, 3,
        ".env, index.js and the link inside node_modules"
    );
}

#[test]
fn a_git_folder_the_session_rewired_is_refused_and_the_project_is_left_alone() {
    let f = fixture();
    let (mut a, _) = create(&f.project, &f.layout, &named("a")).unwrap();
    // A commondir pointing at the project's git folder would make Paddock's own commit
    // write the project's refs.
    std::fs::write(
        a.checkout().join(".git/commondir"),
        f.project.join(".git").display().to_string(),
    )
    .unwrap();
    let err = a.merge(None, "x").unwrap_err();
    assert!(matches!(err, WorktreeError::Tampered { .. }), "{err}");
    std::fs::remove_file(a.checkout().join(".git/commondir")).unwrap();
    std::fs::write(a.checkout().join(".git/objects/info/alternates"), "/tmp\n").unwrap();
    assert!(matches!(a.changes(), Err(WorktreeError::Tampered { .. })));
    std::fs::write(
        a.checkout().join(".git/objects/info/alternates"),
        format!("{}\n", f.project.join(".git/objects").display()),
    )
    .unwrap();
    // On another branch: Paddock commits nothing and moves nothing.
    git(a.checkout(), &["switch", "-q", "-c", "elsewhere"]);
    assert!(matches!(
        a.merge(None, "x"),
        Err(WorktreeError::OffBranch { .. })
    ));
    git(a.checkout(), &["switch", "-q", "paddock/a"]);
    assert!(a.merge(None, "x").is_ok());
}

#[test]
fn a_folder_outside_git_is_told_so() {
    let dir = tempfile::tempdir().unwrap();
    let layout = Layout {
        records: dir.path().join("r"),
        checkouts: dir.path().join("c"),
        wall: None,
    };
    let plain = dir.path().join("plain");
    std::fs::create_dir(&plain).unwrap();
    let err = create(&plain, &layout, &CreateOptions::default()).unwrap_err();
    assert!(matches!(err, WorktreeError::NotARepo { .. }), "{err}");
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    git(&empty, &["init", "-q"]);
    assert!(matches!(
        create(&empty, &layout, &CreateOptions::default()),
        Err(WorktreeError::NoCommit)
    ));
}

#[test]
fn a_folder_outside_git_works_in_a_plain_copy_merged_back_file_by_file() {
    let dir = tempfile::tempdir().unwrap();
    let layout = Layout {
        records: dir.path().join("r"),
        checkouts: dir.path().join("c"),
        wall: None,
    };
    let folder = dir.path().join("notes");
    std::fs::create_dir_all(folder.join("sub")).unwrap();
    std::fs::write(folder.join("a.txt"), "alpha\n").unwrap();
    std::fs::write(folder.join("gone.txt"), "to delete\n").unwrap();
    std::fs::write(folder.join("sub/b.txt"), "beta\n").unwrap();
    std::os::unix::fs::symlink("a.txt", folder.join("link")).unwrap();
    let folder = folder.canonicalize().unwrap();
    let plain = CreateOptions {
        plain_copy: true,
        ..named("copy")
    };
    let (mut wt, _) = create(&folder, &layout, &plain).unwrap();
    assert!(wt.info().plain_copy);
    let copy = wt.project_dir();
    assert_eq!(
        std::fs::read_link(copy.join("link")).unwrap(),
        Path::new("a.txt"),
        "a link stays a link"
    );
    assert_eq!(wt.changes().unwrap().files, Vec::<String>::new());
    std::fs::write(copy.join("a.txt"), "alpha edited\n").unwrap();
    std::fs::remove_file(copy.join("gone.txt")).unwrap();
    std::fs::write(copy.join("sub/new.txt"), "new\n").unwrap();
    assert_eq!(
        wt.changes().unwrap().files,
        ["a.txt", "gone.txt", "sub/new.txt"]
    );
    assert_eq!(
        std::fs::read_to_string(folder.join("a.txt")).unwrap(),
        "alpha\n",
        "untouched until the merge"
    );

    let outcome = wt.merge(None, "work").unwrap();
    assert!(
        matches!(outcome, MergeOutcome::Merged { .. }),
        "{outcome:?}"
    );
    assert_eq!(
        std::fs::read_to_string(folder.join("a.txt")).unwrap(),
        "alpha edited\n"
    );
    assert!(!folder.join("gone.txt").exists());
    assert_eq!(
        std::fs::read_to_string(folder.join("sub/new.txt")).unwrap(),
        "new\n"
    );
    assert!(
        !folder.join(".git").exists(),
        "the folder stays outside git"
    );

    // The user changed a file the session changes again: a conflict, nothing written.
    std::fs::write(folder.join("a.txt"), "the user's\n").unwrap();
    std::fs::write(copy.join("a.txt"), "the session's\n").unwrap();
    std::fs::write(copy.join("sub/b.txt"), "beta edited\n").unwrap();
    let outcome = wt.merge(None, "more").unwrap();
    assert_eq!(
        outcome,
        MergeOutcome::Conflicts {
            into: paddock_worktree::INTO_FOLDER.into(),
            files: vec!["a.txt".into()]
        }
    );
    assert_eq!(
        std::fs::read_to_string(folder.join("a.txt")).unwrap(),
        "the user's\n"
    );
    assert_eq!(
        std::fs::read_to_string(folder.join("sub/b.txt")).unwrap(),
        "beta\n",
        "nothing half-done"
    );
    // A link the folder has where the copy writes is never written through.
    std::fs::write(folder.join("a.txt"), "alpha edited\n").unwrap();
    let outside = dir.path().join("outside.txt");
    std::fs::write(&outside, "outside\n").unwrap();
    std::fs::remove_file(folder.join("sub/b.txt")).unwrap();
    std::os::unix::fs::symlink(&outside, folder.join("sub/b.txt")).unwrap();
    let outcome = wt.merge(None, "again").unwrap();
    assert!(
        matches!(outcome, MergeOutcome::Conflicts { ref files, .. } if files == &["sub/b.txt".to_owned()]),
        "{outcome:?}"
    );
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "outside\n");
    assert!(
        wt.clone().keep("x").is_err(),
        "a copy has no branch to keep"
    );
    let checkout = wt.checkout().to_path_buf();
    wt.discard().unwrap();
    assert!(!checkout.exists());
    assert!(
        folder.join("a.txt").exists(),
        "discarding the copy leaves the folder"
    );
}
