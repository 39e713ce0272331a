//! Every command-line argument that names a path, given what a hostile repository (or a
//! slip of the user's) can put at a path: a FIFO, a socket, a character device
//! (`/dev/zero`, which never ends), a folder where a file is wanted and a file where a folder
//! is. Each run of the real binary must end at once (it is killed after [`HUNG`] and the
//! test fails), with a usage error that names the path and what it is, and nothing sent to
//! the model.
//!
//! The arguments are found, not listed: [`path_arguments`] walks `paddock … --help` through
//! every subcommand and collects each argument whose value is `<FILE>` or `<DIR>` (cli.rs's
//! `every_path_argument_is_named_file_or_dir` holds every `PathBuf` argument to those names,
//! and every value name seen must be classified in [`NOT_PATHS`]), so a new path flag, or a
//! new subcommand with `--project`, is run here without anyone adding it, and one the test
//! cannot run fails it.
//!
//! How it failed on main: `exec --image FIFO` and `resume --image FIFO` hung (the image was
//! opened with a plain `File::open`, which waits for a writer forever; SIGTERM did not end
//! it either, only SIGKILL), while the `@` path refused the same FIFO in 0.2 s; `--project`
//! said only "does not exist or is not a folder", and a write target "a FIFO, a device or a
//! folder" without saying which.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use paddock_fake_model::{FakeServer, Reply};
use serde_json::json;

use crate::common::{Env, PADDOCK, Run};

/// A run that takes longer than this is hung: killed, and the test fails.
const HUNG: Duration = Duration::from_secs(10);

/// Value names of arguments that are not paths (anything else but `FILE` and `DIR` fails
/// the walk until it is classified here or made a `PathBuf`).
const NOT_PATHS: &[&str] = &[
    "BRANCH",
    "CALL",
    "COMMAND",
    "FORMAT",
    "HOST",
    "ID",
    "KEY_ENV",
    "M",
    "MESSAGE",
    "MODE",
    "N",
    "N[.T]",
    "NAME",
    "NAME=VALUE",
    "P",
    "PROMPT",
    "PROVIDER",
    "QUERY",
    "RULE",
    "SESSION",
    "SESSION PROMPT",
    "SHA256",
    "TOOL",
    "URL",
    "VAR",
];

/// Value names of arguments that are paths inside a checkout or workspace, not on the
/// machine: each is opened beneath its root (never through a link, without blocking), and
/// each has a test of its own here (`(subcommand, value name)`).
const RELATIVE_PATHS: &[(&str, &str)] = &[("worktree diff", "PATHS")];

/// One path argument: the subcommand it belongs to (`["sessions", "export"]`), its flag, and
/// whether it names a folder (`DIR`) or a file (`FILE`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct PathArg {
    command: Vec<String>,
    flag: String,
    folder: bool,
}

/// `paddock ARGS` (no project, no model: help only).
fn help(args: &[String]) -> String {
    let out = std::process::Command::new(PADDOCK)
        .args(args)
        .arg("--help")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "paddock {args:?} --help");
    String::from_utf8(out.stdout).unwrap()
}

/// The subcommands a help text lists (`help` left out).
fn subcommands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("Commands:") {
            inside = true;
            continue;
        }
        if inside && !line.starts_with("  ") {
            break;
        }
        if let Some(name) = inside.then(|| line.split_whitespace().next()).flatten()
            && name != "help"
        {
            out.push(name.to_owned());
        }
    }
    out
}

/// The arguments a help text lists: (flag or positional, value name when it takes one).
fn arguments(text: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("Arguments:") || line.starts_with("Options:") {
            inside = true;
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        if !inside || !(1..=6).contains(&indent) {
            continue;
        }
        // The argument's own words end where its description begins (two spaces).
        let head = line.trim_start().split("  ").next().unwrap_or_default();
        let value = head
            .find('<')
            .and_then(|a| Some((a, head[a..].find('>')? + a)))
            .map(|(a, b)| head[a + 1..b].to_owned());
        let value = value.or_else(|| {
            // An optional positional: `[COMMAND]...`.
            let rest = head.strip_prefix('[')?;
            Some(rest[..rest.find(']')?].to_owned())
        });
        let name = match head.find("--") {
            Some(at) => head[at..]
                .split([' ', '[', '='])
                .next()
                .unwrap_or_default()
                .to_owned(),
            None => format!("<{}>", value.clone().unwrap_or_default()),
        };
        if name != "--help" && name != "--version" {
            out.push((name, value));
        }
    }
    out
}

/// Every path argument of every subcommand, found in the help; panics on a value name that
/// is neither a path nor in [`NOT_PATHS`].
fn path_arguments() -> (Vec<PathArg>, Vec<Vec<String>>) {
    let mut found = BTreeSet::new();
    let mut commands = Vec::new();
    let mut queue = vec![Vec::<String>::new()];
    while let Some(command) = queue.pop() {
        let text = help(&command);
        for (flag, value) in arguments(&text) {
            let Some(value) = value else { continue };
            match value.as_str() {
                "FILE" | "DIR" => {
                    found.insert(PathArg {
                        command: command.clone(),
                        flag,
                        folder: value == "DIR",
                    });
                }
                other if RELATIVE_PATHS.iter().any(|(_, v)| *v == other) => assert!(
                    RELATIVE_PATHS.contains(&(command.join(" ").as_str(), other)),
                    "`paddock {} {flag}` takes paths inside a checkout: give it a test here \
                     and add it to RELATIVE_PATHS",
                    command.join(" ")
                ),
                other => assert!(
                    NOT_PATHS.contains(&other),
                    "`paddock {} {flag} <{other}>`: is it a path? Make it a PathBuf named FILE \
                     or DIR (this test then runs it), or add {other:?} to NOT_PATHS",
                    command.join(" ")
                ),
            }
        }
        for sub in subcommands(&text) {
            let mut next = command.clone();
            next.push(sub);
            queue.push(next);
        }
        commands.push(command);
    }
    (found.into_iter().collect(), commands)
}

/// What makes each subcommand parse and reach its path arguments (`SESSION` becomes a
/// stored session's id). A subcommand missing here that has a path argument fails the test.
fn required_args() -> BTreeMap<&'static str, &'static [&'static str]> {
    BTreeMap::from([
        ("exec", &["hi"][..]),
        ("resume", &["--last", "hi"][..]),
        ("compact", &["SESSION"][..]),
        ("doctor", &[][..]),
        ("rewind", &["SESSION", "--list"][..]),
        ("trust", &[][..]),
        ("sessions list", &[][..]),
        ("sessions show", &["SESSION"][..]),
        ("sessions search", &["text"][..]),
        ("sessions export", &["SESSION"][..]),
        ("sessions delete", &["SESSION"][..]),
        ("rules explain", &["--", "ls"][..]),
        ("rules list", &[][..]),
        ("worktree list", &[][..]),
        ("worktree changes", &["x"][..]),
        ("worktree commit", &["x"][..]),
        ("worktree merge", &["x"][..]),
        ("worktree keep", &["x"][..]),
        ("worktree discard", &["x"][..]),
        ("worktree diff", &["x"][..]),
        ("prompts list", &[][..]),
        ("prompts accept", &["x"][..]),
        ("hooks list", &[][..]),
    ])
}

/// What is planted at a path: its name, how the error must say what it is.
struct Planted {
    path: PathBuf,
    said: &'static str,
}

/// The hostile paths, in a folder of their own: for a file argument a FIFO, a socket,
/// `/dev/zero` and a folder; for a folder argument a FIFO, a socket, `/dev/zero` and a file.
fn plant(dir: &Path) -> (Vec<Planted>, Vec<Planted>, std::os::unix::net::UnixListener) {
    let fifo = dir.join("shot.png");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let socket = dir.join("agent.sock");
    let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let folder = dir.join("folder.json");
    std::fs::create_dir(&folder).unwrap();
    let file = dir.join("file");
    std::fs::write(&file, "not a folder").unwrap();
    let common = |fifo: &Path, socket: &Path| {
        vec![
            Planted {
                path: fifo.to_owned(),
                said: "a FIFO",
            },
            Planted {
                path: socket.to_owned(),
                said: "a socket",
            },
            Planted {
                path: PathBuf::from("/dev/zero"),
                said: "a character device",
            },
        ]
    };
    let mut files = common(&fifo, &socket);
    files.push(Planted {
        path: folder,
        said: "a folder",
    });
    let mut folders = common(&fifo, &socket);
    folders.push(Planted {
        path: file,
        said: "a file",
    });
    (files, folders, listener)
}

/// `paddock ARGS` in `env`, killed after [`HUNG`].
async fn bounded(env: &Env, args: &[String]) -> (Run, Duration) {
    let mut cmd = env.command(&args.iter().map(String::as_str).collect::<Vec<_>>());
    cmd.stdin(Stdio::null()).kill_on_drop(true);
    let started = Instant::now();
    let child = cmd.spawn().expect("paddock started");
    let out = tokio::time::timeout(HUNG, child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("paddock {args:?} hung for {HUNG:?}"))
        .expect("paddock ran");
    (Run::from(out), started.elapsed())
}

/// Each path argument found in the help, given each hostile path: a usage error at once,
/// naming the path and what it is; the model is never asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_path_argument_refuses_what_is_not_a_file_or_folder_at_once() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text("Stored."));
    let env = Env::new(&server, json!({}));
    let first = env.run(&["exec", "keep this session"]).await;
    first.expect_code(0);
    let session = first.session_id();
    let asked = server.model_requests().len();

    let hostile = tempfile::tempdir().unwrap();
    let (files, folders, _listener) = plant(hostile.path());
    let (found, commands) = path_arguments();
    let required = required_args();
    for flag in [
        "--image",
        "--output-schema",
        "--output-last-message",
        "--project",
    ] {
        assert!(
            found.iter().any(|a| a.flag == flag),
            "the walk missed {flag}: {found:#?}"
        );
    }
    // A path argument of a subcommand with subcommands of its own is global: it is run with
    // each of them (once, though their help lists it too).
    let leaves: Vec<&Vec<String>> = commands
        .iter()
        .filter(|c| {
            !commands
                .iter()
                .any(|o| o.len() > c.len() && o.starts_with(c))
        })
        .collect();
    let cases: BTreeSet<(Vec<String>, String, bool)> = found
        .iter()
        .flat_map(|arg| {
            leaves
                .iter()
                .filter(|l| l.starts_with(&arg.command))
                .map(|l| ((*l).clone(), arg.flag.clone(), arg.folder))
        })
        .collect();
    let mut runs = 0;
    for (leaf, flag, folder) in &cases {
        let key = leaf.join(" ");
        let Some(extra) = required.get(key.as_str()) else {
            panic!("`paddock {key}` takes {flag} but required_args() has no entry for it");
        };
        for p in if *folder { &folders } else { &files } {
            let shown = p.path.display().to_string();
            let mut args = leaf.clone();
            args.extend([flag.clone(), shown.clone()]);
            args.extend(extra.iter().map(|a| match *a {
                "SESSION" => session.clone(),
                other => other.to_owned(),
            }));
            let (run, took) = bounded(&env, &args).await;
            assert_eq!(run.code, 2, "paddock {args:?} ({took:?}):\n{}", run.stderr);
            assert!(
                run.stderr.contains(&shown) && run.stderr.contains(p.said),
                "paddock {args:?} must name {shown} and say it is {}:\n{}",
                p.said,
                run.stderr
            );
            runs += 1;
        }
    }
    assert!(runs >= 80, "only {runs} runs");
    assert_eq!(server.model_requests().len(), asked, "nothing is sent");
    // The session the runs named is untouched (`sessions delete` among them).
    env.load(&session);
}

/// The `@` path of a prompt and an `--image` reached through a link (the user's own file may
/// be one) lead to the same refusal: the FIFO is named, at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fifo_behind_an_at_path_or_an_image_link_is_refused_at_once() {
    let server = FakeServer::start().await.unwrap();
    let env = Env::new(&server, json!({}));
    let ws = env.workspace();
    std::fs::create_dir_all(&ws).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(ws.join("pipe.md"))
        .status()
        .unwrap();
    assert!(made.success());
    let (run, _) = bounded(&env, &["exec".into(), "read @pipe.md".into()]).await;
    run.expect_code(2);
    assert!(
        run.stderr
            .contains("'pipe.md' is not a regular file (a FIFO)"),
        "{}",
        run.stderr
    );

    let link = env.project().join("shot.png");
    std::os::unix::fs::symlink(ws.join("pipe.md"), &link).unwrap();
    let args = ["exec", "--image", "shot.png", "look"].map(String::from);
    let (run, _) = bounded(&env, &args).await;
    run.expect_code(2);
    assert!(
        run.stderr
            .contains("shot.png is not a regular file (a FIFO)"),
        "{}",
        run.stderr
    );
    assert!(server.model_requests().is_empty(), "nothing is sent");
}

/// The user's own files in Paddock's config folder, planted as FIFOs: each command that reads
/// one answers at once, naming it. (Before: `agents.json` was opened with `File::open`, and
/// `agents list` hung.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_users_own_files_are_opened_without_blocking() {
    let env = Env::bare();
    let config = env.config_dir();
    std::fs::create_dir_all(config.join("prompts")).unwrap();
    for name in ["agents.json", "trust.json", "prompts/mine.md", "hooks.json"] {
        let made = std::process::Command::new("mkfifo")
            .arg(config.join(name))
            .status()
            .unwrap();
        assert!(made.success());
    }
    let cases: [(&[&str], &str); 4] = [
        (
            &["agents", "list"],
            "agents.json is not a regular file (a FIFO)",
        ),
        (
            &["trust", "--list"],
            "trust.json is not a regular file (a FIFO)",
        ),
        (
            &["prompts", "list"],
            "mine.md is not a regular file (a FIFO)",
        ),
        (
            &["hooks", "list"],
            "hooks.json is not a regular file (a FIFO)",
        ),
    ];
    for (args, said) in cases {
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        let (run, took) = bounded(&env, &args).await;
        let all = format!("{}{}", run.stdout, run.stderr);
        assert!(all.contains(said), "paddock {args:?} ({took:?}): {all}");
    }
}

/// `worktree diff NAME PATH`, the path a FIFO the agent left in the checkout (or a link to
/// `/dev/zero`): opened beneath the checkout without blocking, refused at once, named.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn worktree_diff_refuses_a_fifo_in_the_checkout_at_once() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text("Done."));
    let mut env = Env::new(&server, json!({"workspace": "project"}));
    let worktrees = env.home().join("worktrees");
    env.set_env("PADDOCK_WORKTREES_DIR", &worktrees.display().to_string());
    let project = env.project();
    std::fs::write(project.join("app.txt"), "one\n").unwrap();
    crate::common::git(&project, &["init", "-q", "-b", "main"]);
    crate::common::git(&project, &["add", "."]);
    crate::common::git(&project, &["commit", "-qm", "base"]);
    env.run(&["exec", "--worktree=w", "hi"])
        .await
        .expect_code(0);
    let listed = env.run(&["worktree", "list", "--json"]).await;
    listed.expect_code(0);
    let checkout = listed
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .flat_map(|v| match v {
            serde_json::Value::Array(items) => items,
            one => vec![one],
        })
        .find_map(|w| w["path"].as_str().map(PathBuf::from))
        .unwrap_or_else(|| panic!("no worktree listed: {}", listed.stdout));
    let made = std::process::Command::new("mkfifo")
        .arg(checkout.join("pipe.md"))
        .status()
        .unwrap();
    assert!(made.success());
    std::os::unix::fs::symlink("/dev/zero", checkout.join("zero.md")).unwrap();

    let args = ["worktree", "diff", "w", "pipe.md"].map(String::from);
    let (run, took) = bounded(&env, &args).await;
    assert_ne!(run.code, 0, "{took:?}");
    assert!(
        run.stderr.contains("pipe.md") && run.stderr.contains("a FIFO"),
        "{}",
        run.stderr
    );
    let args = ["worktree", "diff", "w", "zero.md"].map(String::from);
    let (run, _) = bounded(&env, &args).await;
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains("zero.md"), "{}", run.stderr);
    // Every changed file, the FIFO among them: still at once.
    let args = ["worktree", "diff", "w"].map(String::from);
    let (run, took) = bounded(&env, &args).await;
    assert!(took < HUNG, "{run:?}");
}
