use super::*;

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn held(before: &Surfaces, root: &Path) -> Vec<String> {
    Surfaces::scan(root, &[])
        .held_since(before)
        .into_iter()
        .map(|h| h.rel.display().to_string())
        .collect()
}

fn bare(root: &Path, rel: &str) {
    write(root, &format!("{rel}/HEAD"), "ref: refs/heads/main\n");
    std::fs::create_dir_all(root.join(rel).join("objects")).unwrap();
    std::fs::create_dir_all(root.join(rel).join("refs")).unwrap();
}

#[test]
fn git_init_and_a_commit_are_not_held() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let before = Surfaces::scan(root, &[]);
    bare(root, "r/.git");
    write(root, "r/.git/config", "[core]\n\tbare = false\n");
    write(root, "r/.git/hooks/pre-commit.sample", "#!/bin/sh\n");
    write(root, "r/.git/objects/ab/cdef", "blob");
    assert!(held(&before, root).is_empty());
}

#[test]
fn what_runs_programs_is_held_wherever_it_appears() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    bare(root, "nested/.git");
    write(root, "nested/.git/config", "[core]\n\tbare = false\n");
    let before = Surfaces::scan(root, &[]);
    write(root, "nested/.git/config", "[core]\n\tfsmonitor = ./x\n");
    write(root, "nested/.git/hooks/post-checkout", "#!/bin/sh\n");
    bare(root, "deep/plain-looking");
    write(
        root,
        "deep/plain-looking/config",
        "[core]\n\thooksPath = h\n",
    );
    write(root, "sub/.git", "gitdir: /tmp/elsewhere\n");
    write(root, "ok/.git", "gitdir: ../nested/.git\n");
    write(root, "app/.envrc", "export X=1\n");
    write(root, ".vscode/tasks.json", "{}");
    write(root, "tools/.husky/pre-commit", "#!/bin/sh\n");
    let mut got = held(&before, root);
    got.sort();
    assert_eq!(
        got,
        [
            ".vscode/tasks.json",
            "app/.envrc",
            "deep/plain-looking/config",
            "nested/.git/config",
            "nested/.git/hooks/post-checkout",
            "sub/.git",
            "tools/.husky/pre-commit",
        ]
    );
}

#[test]
fn existing_files_are_kept_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    bare(root, "r/.git");
    write(root, "r/.git/config", "[core]\n");
    std::fs::create_dir_all(root.join("r/.git/hooks")).unwrap();
    write(root, ".envrc", "x");
    let ro = Surfaces::scan(root, &[]).read_only();
    for rel in ["r/.git/config", "r/.git/hooks", ".envrc"] {
        assert!(ro.contains(&root.join(rel)), "{rel}: {ro:?}");
    }
}

#[test]
fn extra_patterns_and_links_count() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let before = Surfaces::scan(root, &["Taskfile.yml".to_owned()]);
    write(root, "Taskfile.yml", "x");
    std::os::unix::fs::symlink("/etc/passwd", root.join(".envrc")).unwrap();
    let after = Surfaces::scan(root, &["Taskfile.yml".to_owned()]);
    let got: Vec<PathBuf> = after
        .held_since(&before)
        .into_iter()
        .map(|h| h.rel)
        .collect();
    assert_eq!(
        got,
        [PathBuf::from(".envrc"), PathBuf::from("Taskfile.yml")]
    );
}

#[test]
fn a_fifo_does_not_block_the_scan() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let fifo = root.join(".envrc");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let scanned = Surfaces::scan(root, &[]);
    assert_eq!(scanned.len(), 1);
}

#[test]
fn a_file_write_that_makes_a_repository_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    assert!(classify(root, Path::new("src/main.rs"), &[]).is_none());
    assert!(classify(root, Path::new("a/.envrc"), &[]).is_some());
    assert!(
        classify(
            root,
            Path::new("Taskfile.yml"),
            &["Taskfile.yml".to_owned()]
        )
        .is_some()
    );
    std::fs::create_dir_all(root.join("evil/objects")).unwrap();
    std::fs::create_dir_all(root.join("evil/refs")).unwrap();
    // HEAD completes the set; config in a complete set is run by git.
    assert!(classify(root, Path::new("evil/HEAD"), &[]).is_some());
    write(root, "evil/HEAD", "ref: refs/heads/main\n");
    assert!(classify(root, Path::new("evil/config"), &[]).is_some());
    assert!(classify(root, Path::new("evil/notes/x.txt"), &[]).is_some());
    assert!(classify(root, Path::new("other/config"), &[]).is_none());
}

#[test]
fn a_root_git_file_and_a_commondir_make_a_repository_whatever_the_folders_look_like() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let before = Surfaces::scan(root, &[]);
    write(root, ".git", "gitdir: g\n");
    write(root, "g/HEAD", "ref: refs/heads/main\n");
    write(root, "g/commondir", "../c\n");
    std::fs::create_dir_all(root.join("c/objects")).unwrap();
    write(root, "c/config", "[core]\n\tfsmonitor = \"touch PWNED\"\n");
    let found = held(&before, root);
    assert!(found.contains(&"c/config".to_owned()), "{found:?}");
    // A commondir out of the workspace is itself a link to judge.
    write(root, "g/commondir", "/elsewhere\n");
    let found = held(&before, root);
    assert!(found.contains(&"g/commondir".to_owned()), "{found:?}");
    // The file tools ask before writing either kind of link.
    assert!(classify(root, Path::new("sub/.git"), &[]).is_some());
    assert!(classify(root, Path::new("x/commondir"), &[]).is_some());
    assert!(classify(root, Path::new("g/config"), &[]).is_some());
}
