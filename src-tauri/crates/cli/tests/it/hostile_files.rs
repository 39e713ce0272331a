//! Files named on the command line, planted by a hostile repository: an `--output-schema` that
//! is `/dev/zero`, a FIFO or huge, a prompt piped from `/dev/zero`, and an
//! `--output-last-message` or `sessions export -o` target that is a committed symlink to a
//! file of the user's (`out.txt -> ~/.bashrc`). Each case says how it failed without its
//! protection (run against the unmodified binary, by hand, with the limits said).

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use paddock_fake_model::{FakeServer, Reply};
use serde_json::json;

use crate::common::{Env, Run};

/// What "answers at once" means for a file that could block or never end (the run stops
/// before any model call).
const PROMPT: Duration = Duration::from_secs(5);
/// A run that takes longer than this is hung (it is killed and the test fails).
const HUNG: Duration = Duration::from_secs(20);

const VICTIM_TEXT: &str = "export SAFE=1\n";

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

/// Runs `paddock ARGS` with stdin from `stdin` under an address-space limit (so a regression
/// that reads without bound fails on its own instead of exhausting the machine) and a time
/// limit (so one that blocks fails instead of hanging the suite).
async fn bounded(env: &Env, args: &[&str], stdin: Stdio) -> (Run, Duration) {
    let mut cmd = env.command(args);
    cmd.stdin(stdin);
    let started = Instant::now();
    let child = cmd.spawn().expect("paddock started");
    // 2 GiB of address space: ample for a run, far below what reading /dev/zero whole takes.
    // Set just after the start (best effort, `prlimit` from util-linux): a guard for the
    // machine should the protection regress, not what the test checks.
    let pid = child.id().expect("pid").to_string();
    let _ = std::process::Command::new("prlimit")
        .args(["--pid", &pid, "--as=2147483648"])
        .status();
    let out = tokio::time::timeout(HUNG, child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("paddock {args:?} hung for {HUNG:?}"))
        .expect("paddock ran");
    (Run::from(out), started.elapsed())
}

/// A project pointed at a fake model that answers `reply`, and a victim file outside it
/// (in a folder of its own, standing in for `~/.bashrc`).
async fn project(reply: &str) -> (FakeServer, Env, tempfile::TempDir) {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text(reply));
    let env = Env::new(&server, json!({}));
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("bashrc"), VICTIM_TEXT).unwrap();
    (server, env, outside)
}

/// Before: `read_to_string` of /dev/zero grew until the allocator failed (0.4 s and 540 MB
/// resident under `prlimit --as=1GiB`; unlimited, all the machine's memory). After: "not a
/// regular file" at once, exit 2 (a usage error), nothing sent. The same through a link
/// committed in the project.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_output_schema_at_dev_zero_is_refused_at_once() {
    let (server, env, _outside) = project("{}").await;
    let (run, took) = bounded(
        &env,
        &["exec", "--output-schema", "/dev/zero", "hi"],
        Stdio::null(),
    )
    .await;
    run.expect_code(2);
    assert!(
        run.stderr.contains("/dev/zero is not a regular file"),
        "{}",
        run.stderr
    );
    assert!(took < PROMPT, "took {took:?}");

    symlink("/dev/zero", env.project().join("schema.json")).unwrap();
    let (run, took) = bounded(
        &env,
        &["exec", "--output-schema", "schema.json", "hi"],
        Stdio::null(),
    )
    .await;
    run.expect_code(2);
    assert!(
        run.stderr.contains("schema.json is a symlink"),
        "{}",
        run.stderr
    );
    assert!(took < PROMPT, "took {took:?}");
    assert!(server.model_requests().is_empty(), "nothing is sent");
}

/// Before: the open of the FIFO waited for a writer forever (`wait_for_partner`), and as
/// it blocked a runtime thread, `timeout 10`'s SIGTERM did not end it either: only SIGKILL
/// did. After: "not a regular file" at once (the open does not block), exit 2.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_output_schema_fifo_is_refused_without_blocking() {
    let (server, env, _outside) = project("{}").await;
    let fifo = env.project().join("schema.json");
    mkfifo(&fifo);
    let (run, took) = bounded(
        &env,
        &["exec", "--output-schema", "schema.json", "hi"],
        Stdio::null(),
    )
    .await;
    run.expect_code(2);
    assert!(
        run.stderr.contains("schema.json is not a regular file"),
        "{}",
        run.stderr
    );
    assert!(took < PROMPT, "took {took:?}");
    assert!(server.model_requests().is_empty(), "nothing is sent");
}

/// Before: a file of any size was read whole. After: over 1 MiB is refused, naming the cap.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_output_schema_is_refused() {
    let (_server, env, _outside) = project("{}").await;
    let schema = env.project().join("schema.json");
    let huge = format!("{{\"description\": \"{}\"}}", "x".repeat(2 << 20));
    std::fs::write(&schema, huge).unwrap();
    let run = env
        .run(&["exec", "--output-schema", "schema.json", "hi"])
        .await;
    run.expect_code(2);
    assert!(run.stderr.contains("larger than 1 MiB"), "{}", run.stderr);
}

/// Before: the same as the schema (540 MB resident in 0.4 s under a 1 GiB limit). After: the
/// prompt on stdin is capped at 4 MiB, exit 2.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_piped_from_dev_zero_is_capped() {
    let (server, env, _outside) = project("{}").await;
    let zero = std::fs::File::open("/dev/zero").unwrap();
    let (run, took) = bounded(&env, &["exec", "-"], Stdio::from(zero)).await;
    run.expect_code(2);
    assert!(run.stderr.contains("larger than 4 MiB"), "{}", run.stderr);
    assert!(took < PROMPT, "took {took:?}");
    assert!(server.model_requests().is_empty(), "nothing is sent");
}

/// Before: `std::fs::write` followed the committed link and truncated the victim (to the
/// empty answer of a failed run, or to the answer). After: the link is refused before the
/// run starts (exit 2, nothing sent) and the victim is unchanged; a dangling link does not
/// create its target either.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_last_message_never_writes_through_a_link() {
    let (server, env, outside) = project("rm -rf ~").await;
    let victim = outside.path().join("bashrc");
    symlink(&victim, env.project().join("out.txt")).unwrap();
    let run = env
        .run(&["exec", "--output-last-message", "out.txt", "hi"])
        .await;
    run.expect_code(2);
    assert!(
        run.stderr.contains("out.txt is a symlink"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), VICTIM_TEXT);
    assert!(server.model_requests().is_empty(), "nothing is sent");

    let planted = outside.path().join("planted");
    symlink(&planted, env.project().join("new.txt")).unwrap();
    env.run(&["exec", "--output-last-message", "new.txt", "hi"])
        .await
        .expect_code(2);
    assert!(!planted.exists(), "a dangling link's target was created");
}

/// Before: opening a FIFO for writing waited for a reader forever, after the run. After:
/// refused before the run, at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_last_message_at_a_fifo_is_refused_at_once() {
    let (_server, env, _outside) = project("hi").await;
    mkfifo(&env.project().join("out.txt"));
    let (run, took) = bounded(
        &env,
        &["exec", "--output-last-message", "out.txt", "hi"],
        Stdio::null(),
    )
    .await;
    run.expect_code(2);
    assert!(
        run.stderr.contains("out.txt is not a regular file"),
        "{}",
        run.stderr
    );
    assert!(took < PROMPT, "took {took:?}");
}

/// The answer replaces a regular file whole and keeps its mode; a hard link to a victim is
/// replaced, not written through (the old in-place write changed the victim too).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_last_message_replaces_a_file_and_not_its_hard_links() {
    use std::os::unix::fs::PermissionsExt;
    let (_server, env, outside) = project("the answer").await;
    let victim = outside.path().join("bashrc");
    let out = env.project().join("out.txt");
    if std::fs::hard_link(&victim, &out).is_err() {
        // Another file system: no hard link across it; a plain file then.
        std::fs::write(&out, "old").unwrap();
    }
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o640)).unwrap();
    env.run(&["exec", "--output-last-message", "out.txt", "hi"])
        .await
        .expect_code(0);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "the answer");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), VICTIM_TEXT);
    let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640, "{mode:o}");
    let left: Vec<_> = std::fs::read_dir(env.project())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".paddock-tmp"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

/// Before: `write_export` opened the link with O_TRUNC and wrote the transcript into the
/// victim (`paddock: wrote export.md`, the victim then began with `# hi`). After: refused,
/// exit 2, the victim unchanged; a new export is still private.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_export_never_writes_through_a_link() {
    use std::os::unix::fs::PermissionsExt;
    let (_server, env, outside) = project("fine").await;
    let id = env.run(&["exec", "hi"]).await.session_id();
    let victim = outside.path().join("bashrc");
    symlink(&victim, env.project().join("export.md")).unwrap();
    let run = env
        .run(&["sessions", "export", &id, "-o", "export.md"])
        .await;
    run.expect_code(2);
    assert!(
        run.stderr.contains("export.md is a symlink"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), VICTIM_TEXT);

    let fresh = env.project().join("fresh.md");
    env.run(&["sessions", "export", &id, "-o", "fresh.md"])
        .await
        .expect_code(0);
    assert!(std::fs::read_to_string(&fresh).unwrap().contains("hi"));
    let mode = std::fs::metadata(&fresh).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "{mode:o}");
}
