//! file_read, file_write, file_edit, grep and glob through the tool interface, as the
//! model sees them.

use std::path::{Path, PathBuf};

use crate::tools_support::{Seen, call, env_at};
use paddock_tools::ToolEnv;
use serde_json::{Value, json};

fn workspace() -> (tempfile::TempDir, PathBuf, ToolEnv) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().canonicalize().unwrap();
    let env = env_at(&ws);
    (dir, ws, env)
}

fn put(root: &Path, rel: &str, content: impl AsRef<[u8]>) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

async fn ok(env: &ToolEnv, tool: &str, input: Value) -> String {
    let seen = call(env, tool, input.clone()).await;
    assert!(!seen.is_error, "{tool} {input}: {}", seen.text);
    seen.text
}

async fn err(env: &ToolEnv, tool: &str, input: Value) -> String {
    let Seen { is_error, text } = call(env, tool, input.clone()).await;
    assert!(is_error, "{tool} {input} should fail: {text}");
    text
}

#[tokio::test]
async fn file_read_pages_numbers_and_refuses_binary() {
    let (_d, ws, env) = workspace();
    let text: String = (1..=30).map(|i| format!("line {i}\n")).collect();
    put(&ws, "a.txt", &text);
    put(&ws, "bin.dat", b"ab\0cd");
    put(&ws, "empty.txt", "");
    let out = ok(
        &env,
        "file_read",
        json!({"path": "a.txt", "offset": 10, "limit": 3}),
    )
    .await;
    assert_eq!(
        out,
        "    10\tline 10\n    11\tline 11\n    12\tline 12\n\n\
         [showing lines 10-12 of 30; continue with offset=13]"
    );
    let out = ok(&env, "file_read", json!({"path": "a.txt"})).await;
    assert!(out.ends_with("    30\tline 30\n"));
    assert!(
        err(&env, "file_read", json!({"path": "bin.dat"}))
            .await
            .contains("binary")
    );
    assert!(
        ok(&env, "file_read", json!({"path": "empty.txt"}))
            .await
            .contains("empty")
    );
    // Issue 52: where to look next is said (small models otherwise guess the contents).
    let missing = err(&env, "file_read", json!({"path": "nope.txt"})).await;
    assert!(
        missing.contains("does not exist") && missing.contains("relative to the workspace root"),
        "{missing}"
    );
    put(&ws, "dir/x", "");
    assert!(
        err(&env, "file_read", json!({"path": "dir"}))
            .await
            .contains("directory")
    );
    let bad = err(&env, "file_read", json!({"path": "a.txt", "limit": 0})).await;
    assert!(bad.contains("limit"), "{bad}");
}

#[tokio::test]
async fn file_read_refuses_huge_files_clearly() {
    let (_d, ws, env) = workspace();
    let file = std::fs::File::create(ws.join("big.log")).unwrap();
    file.set_len(paddock_tools::file_read::MAX_FILE_BYTES + 1)
        .unwrap();
    let out = err(&env, "file_read", json!({"path": "big.log"})).await;
    assert!(
        out.contains("reads files up to 20 MB") && out.contains("grep"),
        "{out}"
    );
}

#[tokio::test]
async fn file_read_hides_keys_the_host_holds() {
    let (_d, ws, mut env) = workspace();
    env.secrets = vec!["sk-held-key-0123456789".to_owned()];
    put(&ws, ".env", "OPENAI_API_KEY=sk-held-key-0123456789\n");
    let out = ok(&env, "file_read", json!({"path": ".env"})).await;
    assert_eq!(out, "     1\tOPENAI_API_KEY=[REDACTED]\n");
}

#[tokio::test]
async fn file_write_creates_parents_and_says_created_or_updated() {
    let (_d, ws, env) = workspace();
    let out = ok(
        &env,
        "file_write",
        json!({"path": "a/b/c.md", "content": "one\ntwo\n"}),
    )
    .await;
    assert_eq!(out, "Created a/b/c.md (2 lines, 8 bytes).");
    let out = ok(
        &env,
        "file_write",
        json!({"path": "a/b/c.md", "content": "x"}),
    )
    .await;
    assert_eq!(out, "Updated a/b/c.md (1 line, 1 bytes).");
    assert_eq!(std::fs::read_to_string(ws.join("a/b/c.md")).unwrap(), "x");
    let out = err(&env, "file_write", json!({"path": "a/b", "content": "x"})).await;
    assert!(out.contains("directory"), "{out}");
}

/// The names in a folder, sorted (temporary files would show here).
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn writes_and_edits_replace_the_file_whole_and_keep_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let (_d, ws, env) = workspace();
    put(&ws, "notes.md", "old text\n");
    std::fs::set_permissions(ws.join("notes.md"), std::fs::Permissions::from_mode(0o600)).unwrap();
    // A second name for the old file: written in place, it would change too; replaced by a
    // rename (so a crash mid-write leaves the old contents), it keeps the old text.
    std::fs::hard_link(ws.join("notes.md"), ws.join("before.md")).unwrap();

    ok(
        &env,
        "file_write",
        json!({"path": "notes.md", "content": "new text\n"}),
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(ws.join("notes.md")).unwrap(),
        "new text\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("before.md")).unwrap(),
        "old text\n"
    );
    let mode = |p: &str| std::fs::metadata(ws.join(p)).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode("notes.md"), 0o600, "the file keeps its permissions");

    std::fs::hard_link(ws.join("notes.md"), ws.join("before-edit.md")).unwrap();
    ok(
        &env,
        "file_edit",
        json!({"path": "notes.md", "old_string": "new", "new_string": "edited"}),
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(ws.join("notes.md")).unwrap(),
        "edited text\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("before-edit.md")).unwrap(),
        "new text\n"
    );
    assert_eq!(mode("notes.md"), 0o600);
    assert_eq!(
        names(&ws),
        ["before-edit.md", "before.md", "notes.md"],
        "no temporary file is left behind"
    );
}

#[tokio::test]
async fn writing_through_a_symlink_inside_replaces_its_target_and_keeps_the_link() {
    let (_d, ws, env) = workspace();
    put(&ws, "real/config.toml", "a = 1\n");
    std::os::unix::fs::symlink("real/config.toml", ws.join("config.toml")).unwrap();
    ok(
        &env,
        "file_write",
        json!({"path": "config.toml", "content": "a = 2\n"}),
    )
    .await;
    ok(
        &env,
        "file_edit",
        json!({"path": "config.toml", "old_string": "2", "new_string": "3"}),
    )
    .await;
    assert!(
        ws.join("config.toml")
            .symlink_metadata()
            .unwrap()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("real/config.toml")).unwrap(),
        "a = 3\n"
    );
    assert_eq!(names(&ws.join("real")), ["config.toml"]);
}

#[tokio::test]
async fn a_write_that_fails_leaves_the_old_file_and_no_temporary() {
    let (_d, ws, env) = workspace();
    put(&ws, "keep.txt", "precious\n");
    // Refused writes (a folder, a path through a file) touch nothing.
    std::fs::create_dir(ws.join("dir")).unwrap();
    let out = err(
        &env,
        "file_edit",
        json!({"path": "dir", "old_string": "a", "new_string": "b"}),
    )
    .await;
    assert!(out.contains("directory"), "{out}");
    let out = err(
        &env,
        "file_write",
        json!({"path": "keep.txt/x", "content": "x"}),
    )
    .await;
    assert!(!out.is_empty());
    assert_eq!(
        std::fs::read_to_string(ws.join("keep.txt")).unwrap(),
        "precious\n"
    );
    assert_eq!(names(&ws), ["dir", "keep.txt"]);
}

#[tokio::test]
async fn file_write_refuses_fifos_without_hanging() {
    let (_d, ws, env) = workspace();
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        ws.join("pipe"),
        rustix::fs::Mode::from_raw_mode(0o644),
    )
    .unwrap();
    let read = err(&env, "file_read", json!({"path": "pipe"})).await;
    assert!(read.contains("not a regular file"), "{read}");
    let write = err(&env, "file_write", json!({"path": "pipe", "content": "x"})).await;
    assert!(!write.is_empty());
}

#[tokio::test]
async fn file_edit_is_literal_unique_and_keeps_line_endings() {
    let (_d, ws, env) = workspace();
    put(&ws, "f.txt", "let a = 1;\nlet b = 1;\n");
    let out = err(
        &env,
        "file_edit",
        json!({"path": "f.txt", "old_string": "= 1", "new_string": "= 2"}),
    )
    .await;
    assert!(out.contains("occurs 2 times"), "{out}");
    let out = ok(
        &env,
        "file_edit",
        json!({"path": "f.txt", "old_string": "= 1", "new_string": "= $&", "replace_all": true}),
    )
    .await;
    assert_eq!(out, "Replaced 2 occurrences in f.txt (now 2 lines).");
    assert_eq!(
        std::fs::read_to_string(ws.join("f.txt")).unwrap(),
        "let a = $&;\nlet b = $&;\n"
    );
    put(&ws, "win.txt", "a\r\nb\r\n");
    ok(
        &env,
        "file_edit",
        json!({"path": "win.txt", "old_string": "a\nb", "new_string": "x\ny"}),
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(ws.join("win.txt")).unwrap(),
        "x\r\ny\r\n"
    );
    let out = err(
        &env,
        "file_edit",
        json!({"path": "f.txt", "old_string": "zzz", "new_string": "y"}),
    )
    .await;
    assert!(out.contains("not found"), "{out}");
    let out = err(
        &env,
        "file_edit",
        json!({"path": "new.txt", "old_string": "a", "new_string": "b"}),
    )
    .await;
    assert!(out.contains("does not exist"), "{out}");
    assert!(!ws.join("new.txt").exists(), "file_edit created a file");
}

/// A small tree with ignored, skipped and binary files.
fn tree(ws: &Path) {
    put(ws, "src/main.rs", "fn main() {\n    todo!();\n}\n");
    put(ws, "src/lib/util.rs", "// TODO: tidy\npub fn util() {}\n");
    put(ws, "README.md", "todo: docs\n");
    put(ws, ".gitignore", "target/\n*.log\n");
    put(ws, "target/debug/out.rs", "TODO ignored\n");
    put(ws, "build.log", "TODO ignored\n");
    put(ws, "node_modules/pkg/index.js", "// TODO skipped\n");
    put(ws, ".git/config", "TODO skipped\n");
    put(ws, "image.bin", b"TODO\0binary");
}

#[tokio::test]
async fn grep_searches_in_process_with_ripgrep_rules() {
    let (_d, ws, env) = workspace();
    tree(&ws);
    let out = ok(&env, "grep", json!({"pattern": "TODO"})).await;
    assert_eq!(out, "src/lib/util.rs:1:// TODO: tidy\n");
    let out = ok(
        &env,
        "grep",
        json!({"pattern": "todo", "ignore_case": true}),
    )
    .await;
    assert_eq!(
        out,
        "README.md:1:todo: docs\nsrc/lib/util.rs:1:// TODO: tidy\nsrc/main.rs:2:    todo!();\n"
    );
    let out = ok(
        &env,
        "grep",
        json!({"pattern": "todo!(", "literal": true, "path": "src"}),
    )
    .await;
    assert_eq!(out, "src/main.rs:2:    todo!();\n");
    let out = ok(
        &env,
        "grep",
        json!({"pattern": "fn", "include": "src/**/*.rs", "files_only": true}),
    )
    .await;
    assert_eq!(out, "src/lib/util.rs\nsrc/main.rs\n");
    let out = ok(
        &env,
        "grep",
        json!({"pattern": "fn", "include": "*.rs", "path": "src/lib"}),
    )
    .await;
    assert_eq!(out, "src/lib/util.rs:2:pub fn util() {}\n");
    let out = ok(&env, "grep", json!({"pattern": "nothing-here"})).await;
    assert!(out.starts_with("No matches"), "{out}");
    let out = err(&env, "grep", json!({"pattern": "fn("})).await;
    assert!(out.contains("invalid regex"), "{out}");
    let out = err(&env, "grep", json!({"pattern": "x", "include": "a[" })).await;
    assert!(out.contains("invalid glob"), "{out}");
    let out = ok(
        &env,
        "grep",
        json!({"pattern": "fn", "path": "src/main.rs"}),
    )
    .await;
    assert_eq!(out, "src/main.rs:1:fn main() {\n");
}

#[tokio::test]
async fn grep_cap_is_a_total_not_per_file() {
    let (_d, ws, env) = workspace();
    for f in 0..20 {
        let body: String = (0..20).map(|i| format!("hit {i}\n")).collect();
        put(&ws, &format!("f{f:02}.txt"), body);
    }
    let out = ok(&env, "grep", json!({"pattern": "hit"})).await;
    let lines: Vec<&str> = out.lines().filter(|l| l.contains(":hit")).collect();
    assert_eq!(lines.len(), 100, "{out}");
    assert!(out.contains("showing the first 100 matches; more exist"));
    let out = ok(&env, "grep", json!({"pattern": "hit", "limit": 400})).await;
    assert_eq!(out.lines().filter(|l| l.contains(":hit")).count(), 400);
    assert!(!out.contains("more exist"));
}

#[tokio::test]
async fn glob_matches_relative_paths() {
    let (_d, ws, env) = workspace();
    tree(&ws);
    let out = ok(&env, "glob", json!({"pattern": "src/**/*.rs"})).await;
    assert_eq!(out, "src/lib/util.rs\nsrc/main.rs\n");
    let out = ok(&env, "glob", json!({"pattern": "*.rs"})).await;
    assert_eq!(out, "src/lib/util.rs\nsrc/main.rs\n");
    let out = ok(&env, "glob", json!({"pattern": "src/*.rs"})).await;
    assert_eq!(out, "src/main.rs\n");
    let out = ok(&env, "glob", json!({"pattern": "*.rs", "path": "src/lib"})).await;
    assert_eq!(out, "src/lib/util.rs\n");
    let out = ok(&env, "glob", json!({"pattern": "**/*.{md,bin}"})).await;
    assert_eq!(out, "README.md\nimage.bin\n");
    let out = ok(&env, "glob", json!({"pattern": "*.py"})).await;
    assert!(out.starts_with("No files match"), "{out}");
    assert!(
        err(&env, "glob", json!({"pattern": "[z"}))
            .await
            .contains("invalid glob")
    );
}

#[tokio::test]
async fn glob_caps_at_500_by_default() {
    let (_d, ws, env) = workspace();
    for i in 0..600 {
        put(&ws, &format!("d{}/f{i:03}.txt", i % 7), "");
    }
    let out = ok(&env, "glob", json!({"pattern": "**/*.txt"})).await;
    assert_eq!(out.lines().filter(|l| l.ends_with(".txt")).count(), 500);
    assert!(out.contains("showing the first 500 paths; more exist"));
    let out = ok(&env, "glob", json!({"pattern": "**/*.txt", "limit": 1000})).await;
    assert_eq!(out.lines().count(), 600);
}

/// Shown able to fail: `"path": ""` was refused ("the path is empty") though the schema
/// says the default is the whole workspace; small models then asked the user for a path.
#[tokio::test]
async fn an_empty_optional_folder_means_the_whole_workspace() {
    let (_d, ws, env) = workspace();
    tree(&ws);
    for path in ["", "  "] {
        let out = ok(&env, "glob", json!({"pattern": "*.rs", "path": path})).await;
        assert_eq!(out, "src/lib/util.rs\nsrc/main.rs\n", "{path:?}");
        let out = ok(&env, "grep", json!({"pattern": "todo!", "path": path})).await;
        assert!(out.contains("src/main.rs:2:"), "{path:?}: {out}");
    }
}

/// Shown able to fail: the error stopped at "does not exist" and small models retried the
/// same edit over and over.
#[tokio::test]
async fn editing_a_missing_file_points_at_file_write() {
    let (_d, ws, env) = workspace();
    put(&ws, "keep.txt", "x");
    let out = err(
        &env,
        "file_edit",
        json!({"path": "new.txt", "old_string": "a", "new_string": "b"}),
    )
    .await;
    assert!(
        out.contains("does not exist") && out.contains("file_write"),
        "{out}"
    );
}
