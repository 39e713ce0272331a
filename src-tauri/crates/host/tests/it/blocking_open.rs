//! The desktop's IPC commands that take a path, through the host functions they delegate to,
//! given what a hostile repository or agent can put at a path: a FIFO (whose plain open
//! waits for a writer forever), a socket, a link to `/dev/zero`, a folder. Each call must
//! answer within [`AT_ONCE`] (it runs on a thread of its own; a call that blocks fails the
//! test instead of hanging it), refusing the path by name and kind.
//!
//! The commands are found, not listed: [`ipc_commands`] reads the generated command table
//! in docs/desktop-ipc.md (the desktop's `contract` test keeps it equal to commands.rs), and
//! every argument name must be classified in [`NOT_PATHS`] or be one tested here, so a new
//! command that takes a path fails this test until it has a case.
//!
//! The `project` argument of every command is resolved by the desktop's
//! `projects::canonical` (a folder, else refused naming what it is: tested in
//! src-tauri/src/projects.rs with a FIFO, a socket, a device and a file).
//!
//! On main these paths were already opened without blocking (the path guard's
//! `O_NONBLOCK`): what hung there was `--image` on the command line (cli tests'
//! blocking_open.rs) and the user's `agents.json`; a socket was refused as "No such device
//! or address (os error 6)", naming nothing it is (now "not a regular file (a socket)").
//! The FIFO cases were checked to fail (hang, caught by [`at_once`]) with `O_NONBLOCK`
//! taken out of the guard's `open_beneath`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use paddock_host::session::SessionStore;
use paddock_host::trust::{TrustPolicy, TrustStore};
use paddock_host::{EnvKeys, NewWorktree, RunService};
use paddock_protocol::{PromptAttachment, ProviderKind};

use crate::git;

/// Longer than any of these calls takes; a call that blocks fails instead.
const AT_ONCE: Duration = Duration::from_secs(10);

/// The argument names of IPC commands that are not paths (a command's `project` is the
/// desktop's to resolve, see above).
const NOT_PATHS: &[&str] = &[
    "after",
    "args",
    "baseUrl",
    "call",
    "config",
    "decision",
    "digest",
    "feed",
    "format",
    "from",
    "grant",
    "hint",
    "id",
    "key",
    "landing",
    "mediaType",
    "mode",
    "model",
    "name",
    "network",
    "patterns",
    "plainCopy",
    "preset",
    "project",
    "prompt:number",
    "provider",
    "query",
    "replace",
    "requestId",
    "rule",
    "rules",
    "sessionId",
    "settings",
    "sha256",
    "summary",
    "tail",
    "text",
    "to",
    "tool",
    "turn",
    "url",
    "value",
    "worktree",
];

/// The commands whose arguments name a file or folder, and the test here that holds each.
const TESTED: &[(&str, &str)] = &[
    ("open_project", "path"),
    ("read_workspace_file", "path"),
    ("worktree_diff", "path"),
    ("checkpoint_diff", "path"),
    ("send_prompt", "prompt:PromptInput"),
];

/// Each command of the generated table and its arguments (`name`, or `name:Type` for one
/// whose type decides: `prompt:PromptInput`, `prompt:number`).
fn ipc_commands() -> Vec<(String, Vec<String>)> {
    let table = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../docs/desktop-ipc.md");
    let text = std::fs::read_to_string(table).unwrap();
    let mut out = Vec::new();
    for line in text.lines().filter(|l| l.starts_with("| `")) {
        // The backquoted parts in order: the command, then `name: type` per argument, then
        // what it resolves with (no colon).
        let mut parts = line.split('`').skip(1).step_by(2);
        let Some(command) = parts.next() else {
            continue;
        };
        let args = parts
            .map_while(|p| p.split_once(": "))
            .map(|(name, ty)| match (name, ty) {
                ("prompt", ty) => format!("prompt:{ty}"),
                (name, _) => name.to_owned(),
            })
            .collect();
        out.push((command.to_owned(), args));
    }
    out
}

/// `f` on a thread of its own, failing the test when it has not answered within [`AT_ONCE`].
fn at_once<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(AT_ONCE)
        .unwrap_or_else(|_| panic!("{what} blocked for {AT_ONCE:?}"))
}

fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
}

/// In `dir`: `pipe.md` a FIFO, `sock` a socket, `zero.md` a link to `/dev/zero`, `sub/` a
/// folder. The listener keeps the socket alive.
fn plant(dir: &Path) -> std::os::unix::net::UnixListener {
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    mkfifo(&dir.join("pipe.md"));
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.md")).unwrap();
    std::os::unix::net::UnixListener::bind(dir.join("sock")).unwrap()
}

/// (planted name, what the refusal must say).
const REFUSED: &[(&str, &str)] = &[
    ("pipe.md", "a FIFO"),
    ("sock", "a socket"),
    // A link out of the workspace: refused before it is opened.
    ("zero.md", "zero.md"),
];

fn service(base: &Path) -> RunService {
    RunService::new(
        SessionStore::new(base.join("data/sessions")),
        Arc::new(EnvKeys),
        TrustStore::new(base.join("config/trust.json")),
    )
}

fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let root = dir.path().canonicalize().unwrap().join("project");
    std::fs::create_dir_all(root.join(".agent-workspace")).unwrap();
    (dir, root)
}

#[test]
fn every_ipc_command_that_takes_a_path_is_tested_here() {
    let commands = ipc_commands();
    assert!(commands.len() > 40, "the table was not read: {commands:?}");
    let mut taking = Vec::new();
    for (command, args) in &commands {
        for arg in args {
            if TESTED.contains(&(command.as_str(), arg.as_str())) {
                taking.push((command.clone(), arg.clone()));
            } else {
                assert!(
                    NOT_PATHS.contains(&arg.as_str()),
                    "`{command}` takes `{arg}`: if it names a file or folder, test it here and \
                     add it to TESTED; else add it to NOT_PATHS"
                );
            }
        }
    }
    let mut tested: Vec<(String, String)> = TESTED
        .iter()
        .map(|(c, a)| ((*c).to_owned(), (*a).to_owned()))
        .collect();
    tested.sort();
    taking.sort();
    assert_eq!(
        taking, tested,
        "TESTED names a command the table no longer has"
    );
}

/// `read_workspace_file` (`workspace::preview`): each planted path refused at once, by name.
#[test]
fn read_workspace_file_refuses_what_is_not_a_file_at_once() {
    let (_dir, root) = project();
    let _socket = plant(&root.join(".agent-workspace"));
    for (name, said) in REFUSED {
        let at = root.clone();
        let e = at_once(&format!("read_workspace_file {name}"), move || {
            let guard = paddock_host::workspace::guard_for(&no_trust(&at), &at);
            paddock_host::workspace::preview(&guard, name).map(|_| ())
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains(name) && e.contains(said), "{name}: {e}");
    }
    let at = root.clone();
    let e = at_once("read_workspace_file sub", move || {
        let guard = paddock_host::workspace::guard_for(&no_trust(&at), &at);
        paddock_host::workspace::preview(&guard, "sub").map(|_| ())
    })
    .unwrap_err()
    .to_string();
    assert!(e.contains("'sub' is a directory"), "{e}");
}

/// `send_prompt` with an `@` attachment (`attach::prompt_message`, what both the app's and
/// an external agent's runs read the prompt with): refused at once, by name.
#[test]
fn a_prompt_naming_what_is_not_a_file_is_refused_at_once() {
    let (_dir, root) = project();
    let _socket = plant(&root.join(".agent-workspace"));
    for (name, said) in REFUSED {
        let at = root.clone();
        let e = at_once(&format!("send_prompt @{name}"), move || {
            let guard = paddock_host::workspace::guard_for(&no_trust(&at), &at);
            let vision = paddock_host::attach::Vision {
                provider: ProviderKind::Anthropic,
                model: "m",
                takes: None,
            };
            let mention = PromptAttachment::Mention {
                path: (*name).to_owned(),
            };
            paddock_host::attach::prompt_message(&guard, "look", &[mention], vision).map(|_| ())
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains(name) && e.contains(said), "{name}: {e}");
    }
}

/// `open_project`'s host side (the project's info, its instructions, its first checkpoint)
/// on a project whose settings, instructions, MCP file and saved prompt are FIFOs: every
/// one answers at once; the settings and the instructions say what is wrong, the snapshot
/// skips the FIFO.
#[test]
fn opening_a_project_full_of_fifos_answers_at_once() {
    let (dir, root) = project();
    std::fs::create_dir_all(root.join(".paddock/prompts")).unwrap();
    for name in [
        ".paddock/settings.json",
        ".paddock/prompts/go.md",
        "AGENTS.md",
        ".mcp.json",
        ".agent-workspace/pipe.md",
    ] {
        mkfifo(&root.join(name));
    }
    std::fs::write(root.join(".agent-workspace/kept.md"), "kept").unwrap();
    let service = Arc::new(service(dir.path()));
    let (s, at) = (service.clone(), root.clone());
    let info = at_once("open_project's info", move || {
        paddock_host::edit::info(s.trust(), &at)
    });
    let error = info.settings_error.unwrap_or_default();
    assert!(
        error.contains("settings.json") && error.contains("a FIFO"),
        "{error}"
    );
    let at = root.clone();
    let notices = at_once("project_instructions", move || {
        paddock_host::instructions::load(&at).notices.join("\n")
    });
    assert!(notices.contains("a FIFO"), "{notices}");
    let at = root.clone();
    let imported = at_once("import_mcp_servers", move || {
        paddock_host::mcp_import::read_project_file(&at).map(|f| f.is_some())
    });
    // A FIFO is not taken for the project's MCP file.
    assert!(matches!(imported, Ok(false)), "{imported:?}");
    let (s, at) = (service.clone(), root.clone());
    at_once("open_project's checkpoint", move || {
        s.begin_checkpoints(&at).unwrap();
        loop {
            let status = s.checkpoint_status(&at).unwrap();
            if status.state != paddock_protocol::CheckpointState::Recording {
                return status;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    });
}

/// `checkpoint_diff` reads the checkpoint store, never the path: a FIFO's name answers at once.
#[test]
fn checkpoint_diff_of_a_fifo_answers_at_once() {
    let (dir, root) = project();
    let _socket = plant(&root.join(".agent-workspace"));
    let service = Arc::new(service(dir.path()));
    let (s, at) = (service.clone(), root.clone());
    let result = at_once("checkpoint_diff pipe.md", move || {
        s.checkpoint_diff(&at, &"0".repeat(64), &"1".repeat(64), "pipe.md")
            .map(|c| c.is_some())
    });
    assert!(!matches!(result, Ok(true)), "{result:?}");
}

/// `worktree_diff` of a FIFO, a socket or a link to `/dev/zero` the agent left in its
/// checkout: refused at once, by name.
#[cfg(target_os = "linux")]
#[test]
fn worktree_diff_refuses_what_is_not_a_file_at_once() {
    let (dir, project) = project();
    std::fs::write(project.join("app.txt"), "one\n").unwrap();
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["add", "app.txt"]);
    git(&project, &["commit", "-qm", "base"]);
    let service = Arc::new(service(dir.path()));
    let made = service
        .create_worktree(
            &project,
            NewWorktree {
                name: Some("w".into()),
                ..NewWorktree::default()
            },
            TrustPolicy::SafeDefaults,
        )
        .unwrap();
    let checkout = PathBuf::from(&made.worktree.path);
    let _socket = plant(&checkout);
    for (name, said) in REFUSED {
        let (s, at) = (service.clone(), project.clone());
        let e = at_once(&format!("worktree_diff {name}"), move || {
            s.worktree_diff(&at, "w", name).map(|_| ())
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains(name) && e.contains(said), "{name}: {e}");
    }
}

/// A trust record nobody wrote (beside the project): the folder's settings wait.
fn no_trust(root: &std::path::Path) -> paddock_host::trust::TrustStore {
    paddock_host::trust::TrustStore::new(root.with_extension("trust.json"))
}
