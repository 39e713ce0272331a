//! The escape battery: every file tool against `..`, absolute paths, symlinks out (file and
//! directory, direct and through a parent, dangling), loops, `..name`, a root reached
//! through a symlink, a missing root, and a race that swaps a directory for a symlink while
//! file_write loops. Nothing may be read from or appear outside the workspace.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::tools_support::{call, env_at};
use serde_json::{Value, json};

const SECRET: &str = "TOP SECRET outside";

struct Fixture {
    _dir: tempfile::TempDir,
    base: PathBuf,
    ws: PathBuf,
    outside: PathBuf,
}

/// base/ws is the workspace, base/outside is what must stay untouched.
fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let ws = base.join("ws");
    let outside = base.join("outside");
    std::fs::create_dir_all(ws.join("sub")).unwrap();
    std::fs::create_dir_all(outside.join("dir")).unwrap();
    std::fs::write(outside.join("secret.txt"), SECRET).unwrap();
    std::fs::write(outside.join("dir/deep.txt"), SECRET).unwrap();
    std::fs::write(ws.join("file.txt"), "hello\n").unwrap();
    std::fs::write(ws.join("sub/inner.txt"), "inner text\n").unwrap();
    std::fs::write(ws.join("..notes"), "dot dot notes\n").unwrap();
    let links: &[(&str, PathBuf)] = &[
        ("link_file_out", outside.join("secret.txt")),
        ("link_dir_out", outside.clone()),
        ("link_rel_out", PathBuf::from("../outside/secret.txt")),
        ("link_dir_rel_out", PathBuf::from("../outside")),
        ("dangling_out", outside.join("new.txt")),
        ("dangling_rel_out", PathBuf::from("../outside/new2.txt")),
        ("dangling_dir_out", outside.join("newdir")),
        ("sub/up", PathBuf::from("../..")),
        ("loop_a", PathBuf::from("loop_b")),
        ("loop_b", PathBuf::from("loop_a")),
        ("self_loop", PathBuf::from("self_loop")),
        ("link_in", PathBuf::from("sub")),
        ("abs_in", ws.join("sub")),
        ("dangling_in", PathBuf::from("sub/made_via_link.txt")),
        ("proc_root", PathBuf::from("/proc/self/root")),
        ("etc", PathBuf::from("/etc")),
    ];
    for (name, target) in links {
        symlink(target, ws.join(name)).unwrap();
    }
    Fixture {
        _dir: dir,
        base,
        ws,
        outside,
    }
}

/// Every file (with content) under `dir`, for before/after comparison.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                stack.push(path.clone());
                out.push((path, Vec::new()));
            } else {
                out.push((path.clone(), std::fs::read(&path).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

/// The input each tool gets for a path.
fn input_for(tool: &str, path: &str) -> Value {
    match tool {
        "file_read" => json!({"path": path}),
        "file_write" => json!({"path": path, "content": "written by the agent\n"}),
        "file_edit" => json!({"path": path, "old_string": "TOP", "new_string": "PWNED"}),
        "grep" => json!({"pattern": "SECRET", "path": path}),
        "glob" => json!({"pattern": "*", "path": path}),
        other => panic!("unknown tool {other}"),
    }
}

const FILE_TOOLS: [&str; 5] = ["file_read", "file_write", "file_edit", "grep", "glob"];

/// Reasons a refusal may give; a refusal for any other reason does not count.
const REFUSALS: &[&str] = &[
    "outside the workspace",
    "points outside the workspace",
    "symlink loop",
    "path is empty",
];

#[tokio::test]
async fn escape_battery() {
    let f = fixture();
    let env = env_at(&f.ws);
    let before = snapshot(&f.outside);
    let outside_abs = f.outside.join("secret.txt").display().to_string();
    let dotdot_abs = f.ws.join("../outside/secret.txt").display().to_string();

    // Paths every file tool must refuse.
    let refused_everywhere: Vec<String> = vec![
        "../outside/secret.txt".into(),
        "sub/../../outside/secret.txt".into(),
        "/etc/passwd".into(),
        outside_abs,
        dotdot_abs,
        "link_file_out".into(),
        "link_dir_out/secret.txt".into(),
        "link_dir_out/dir".into(),
        "link_rel_out".into(),
        "link_dir_rel_out/secret.txt".into(),
        "sub/up/outside/secret.txt".into(),
        "dangling_out".into(),
        "dangling_rel_out".into(),
        "dangling_dir_out/x.txt".into(),
        "link_dir_out/newdir/deep/x.txt".into(),
        "loop_a".into(),
        "self_loop/x".into(),
        "proc_root/etc/passwd".into(),
        "etc/hostname".into(),
        "".into(),
    ];
    let mut cases = 0;
    for path in &refused_everywhere {
        for tool in FILE_TOOLS {
            // grep and glob search folders; give them the folder-shaped variants too.
            let seen = call(&env, tool, input_for(tool, path)).await;
            cases += 1;
            if path.is_empty() && matches!(tool, "grep" | "glob") {
                // An empty search path is the schema's default: the whole workspace, which
                // never follows a link out.
                assert!(!seen.is_error, "{tool} {path:?}: {}", seen.text);
                assert!(!seen.text.contains(SECRET), "{tool} {path:?} leaked");
                assert!(!seen.text.contains("secret.txt"), "{tool} {path:?} leaked");
                continue;
            }
            assert!(
                seen.is_error,
                "{tool} {path:?} was not refused: {}",
                seen.text
            );
            assert!(
                REFUSALS.iter().any(|r| seen.text.contains(r)),
                "{tool} {path:?} refused for the wrong reason: {}",
                seen.text
            );
            assert!(!seen.text.contains(SECRET), "{tool} {path:?} leaked");
        }
    }

    // Searching the whole workspace never follows links out.
    let seen = call(&env, "grep", json!({"pattern": "TOP SECRET"})).await;
    cases += 1;
    assert!(
        !seen.is_error && seen.text.starts_with("No matches"),
        "{}",
        seen.text
    );
    let seen = call(&env, "glob", json!({"pattern": "**/*"})).await;
    cases += 1;
    assert!(!seen.text.contains("secret.txt") && !seen.text.contains("deep.txt"));
    assert!(seen.text.contains("sub/inner.txt"), "{}", seen.text);

    // Allowed: `..name`, links that stay inside, `..` that stays inside.
    let allowed: &[(&str, Value, &str)] = &[
        ("file_read", json!({"path": "..notes"}), "dot dot notes"),
        (
            "file_read",
            json!({"path": "link_in/inner.txt"}),
            "inner text",
        ),
        (
            "file_read",
            json!({"path": "abs_in/inner.txt"}),
            "inner text",
        ),
        (
            "file_read",
            json!({"path": "sub/x/../inner.txt"}),
            "inner text",
        ),
        (
            "file_edit",
            json!({"path": "..notes", "old_string": "notes", "new_string": "NOTES"}),
            "Replaced 1",
        ),
        (
            "file_write",
            json!({"path": "..other", "content": "x"}),
            "Created ..other",
        ),
        (
            "file_write",
            json!({"path": "dangling_in", "content": "via link\n"}),
            "Created sub/made_via_link.txt",
        ),
        (
            "file_write",
            json!({"path": "new/deep/file.txt", "content": "x"}),
            "Created new/deep/file.txt",
        ),
        (
            "grep",
            json!({"pattern": "inner", "path": "link_in"}),
            "sub/inner.txt:1:inner text",
        ),
        (
            "glob",
            json!({"pattern": "*.txt", "path": "abs_in"}),
            "sub/inner.txt",
        ),
    ];
    for (tool, input, expect) in allowed {
        let seen = call(&env, tool, input.clone()).await;
        cases += 1;
        assert!(!seen.is_error, "{tool} {input} refused: {}", seen.text);
        assert!(seen.text.contains(expect), "{tool} {input}: {}", seen.text);
    }
    assert_eq!(
        std::fs::read_to_string(f.ws.join("sub/made_via_link.txt")).unwrap(),
        "via link\n"
    );

    assert_eq!(snapshot(&f.outside), before, "something changed outside");
    assert!(!f.outside.join("new.txt").exists() && !f.outside.join("newdir").exists());
    assert!(cases >= 40, "only {cases} cases");
    eprintln!("escape battery: {cases} cases");
}

#[tokio::test]
async fn root_reached_through_a_symlink_accepts_its_real_path() {
    let f = fixture();
    let link = f.base.join("ws_link");
    symlink(&f.ws, &link).unwrap();
    let env = env_at(&link);
    for path in [
        f.ws.join("file.txt"),
        link.join("file.txt"),
        PathBuf::from("file.txt"),
    ] {
        let path = path.display().to_string();
        let seen = call(&env, "file_read", json!({"path": path})).await;
        assert!(!seen.is_error, "{path}: {}", seen.text);
        assert!(seen.text.contains("hello"));
    }
    let real = f.ws.join("written.txt").display().to_string();
    let seen = call(&env, "file_write", json!({"path": real, "content": "ok"})).await;
    assert!(!seen.is_error, "{}", seen.text);
    assert!(f.ws.join("written.txt").exists());
    // The real path of something else is still outside.
    let other = f.outside.join("secret.txt").display().to_string();
    let seen = call(&env, "file_read", json!({"path": other})).await;
    assert!(seen.is_error && seen.text.contains("outside the workspace"));
}

#[tokio::test]
async fn only_writing_tools_create_a_missing_root() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project/.agent-workspace");
    let env = env_at(&root);
    for (tool, input) in [
        ("file_read", json!({"path": "a.txt"})),
        (
            "file_edit",
            json!({"path": "a.txt", "old_string": "a", "new_string": "b"}),
        ),
        ("grep", json!({"pattern": "a"})),
        ("glob", json!({"pattern": "*"})),
    ] {
        let seen = call(&env, tool, input).await;
        assert!(seen.is_error, "{tool}: {}", seen.text);
        assert!(
            seen.text.contains("does not exist yet"),
            "{tool}: {}",
            seen.text
        );
        assert!(!root.exists(), "{tool} created the root");
    }
    let seen = call(
        &env,
        "file_write",
        json!({"path": "a.txt", "content": "a\n"}),
    )
    .await;
    assert!(!seen.is_error, "{}", seen.text);
    assert_eq!(std::fs::read_to_string(root.join("a.txt")).unwrap(), "a\n");

    // bash writes there too, so it may create the root as well.
    let other = dir.path().join("other/.agent-workspace");
    let seen = call(&env_at(&other), "bash", json!({"command": "echo hi"})).await;
    assert!(
        other.is_dir(),
        "bash did not create the root: {}",
        seen.text
    );
}

#[tokio::test]
async fn no_workspace_configured_is_refused() {
    let env = paddock_tools::ToolEnv::default();
    let seen = call(&env, "file_read", json!({"path": "x"})).await;
    assert!(
        seen.is_error && seen.text.contains("no workspace"),
        "{}",
        seen.text
    );
}

/// Linux only: elsewhere the guard is resolve-then-open, which this race can beat.
///
/// A thread keeps swapping `ws/racedir` (a real folder) with a symlink to the outside
/// folder, atomically (RENAME_EXCHANGE), while file_write writes into `racedir/...`.
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn race_swapping_a_directory_for_a_symlink_never_writes_outside() {
    use rustix::fs::{CWD, RenameFlags, renameat_with};

    let f = fixture();
    let env = env_at(&f.ws);
    let target = f.base.join("race_target");
    std::fs::create_dir(&target).unwrap();
    std::fs::create_dir(f.ws.join("racedir")).unwrap();
    symlink(&target, f.ws.join("racelink")).unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let stop = stop.clone();
        let (a, b) = (f.ws.join("racedir"), f.ws.join("racelink"));
        std::thread::spawn(move || {
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                if renameat_with(CWD, &a, CWD, &b, RenameFlags::EXCHANGE).is_ok() {
                    swaps += 1;
                }
            }
            swaps
        })
    };

    let started = Instant::now();
    let (mut written, mut refused, mut raced, mut i) = (0u32, 0u32, 0u32, 0u32);
    while started.elapsed() < Duration::from_secs(3) {
        let path = if i % 2 == 0 {
            format!("racedir/f{i}.txt")
        } else {
            format!("racedir/n{i}/deep/f.txt")
        };
        let seen = call(&env, "file_write", json!({"path": path, "content": "x"})).await;
        if seen.is_error {
            refused += 1;
            // Caught by openat2 at open time rather than by the resolver beforehand.
            if seen.text.contains("changed while it was being opened") {
                raced += 1;
            }
        } else {
            written += 1;
        }
        i += 1;
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    eprintln!(
        "race: {i} writes, {written} written, {refused} refused ({raced} at open time), \
         {swaps} swaps"
    );

    assert!(swaps > 100, "the swapper barely ran ({swaps} swaps)");
    assert!(
        written > 0,
        "no write ever succeeded: the test proves nothing"
    );
    let leaked = snapshot(&target);
    let names: Vec<_> = leaked.iter().take(5).map(|(p, _)| p.display()).collect();
    assert!(
        leaked.is_empty(),
        "{} entries appeared outside, e.g. {names:?}",
        leaked.len()
    );
}
