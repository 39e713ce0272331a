//! Checkpoints and `paddock rewind` through the real binary: a run's edits and bash changes
//! are put back byte for byte (modes too), the rewind is undone, the conversation stays
//! paired, and a rewind killed at any point ends as the old or the new state.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use paddock_fake_model::{FakeServer, Reply};
use paddock_protocol::{AgentEvent, ChangeKind, Role};
use serde_json::json;

use crate::common::{Env, assert_paired, assert_wire_paired, chat_bodies};

/// Every entry under `dir`: its kind, permission bits and bytes (or link target).
fn listing(dir: &Path) -> BTreeMap<String, (char, u32, Vec<u8>)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(dir).unwrap().display().to_string();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let mode = meta.permissions().mode() & 0o777;
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                out.insert(rel, ('l', 0, target.display().to_string().into_bytes()));
            } else if meta.is_dir() {
                out.insert(rel, ('d', mode, Vec::new()));
                stack.push(path);
            } else {
                out.insert(rel, ('f', mode, std::fs::read(&path).unwrap()));
            }
        }
    }
    out
}

fn write(path: &Path, bytes: &[u8], mode: u32) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn rewinds(env: &Env, id: &str) -> usize {
    env.load(id)
        .events
        .iter()
        .filter(|e| matches!(e, AgentEvent::Rewound(_)))
        .count()
}

const BASH_CHANGES: &str = "sed -i 's/beta/BETA/' dir/keep.txt && rm gone.txt && \
     mkdir -p newdir/empty && echo hi > newdir/f.txt && chmod 700 script.sh && \
     printf 'tail' >> blob.bin && ln -s dir/keep.txt link";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_is_rewound_byte_for_byte_and_the_rewind_undone() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call(
            "file_edit",
            json!({"path": "a.txt", "old_string": "alpha", "new_string": "alpha edited"}),
        ),
        Reply::tool_call("bash", json!({"command": BASH_CHANGES})),
        Reply::text("Done."),
    ]);
    let env = Env::new(&server, json!({}));
    let ws = env.workspace();
    write(&ws.join("a.txt"), b"alpha\n", 0o644);
    write(&ws.join("script.sh"), b"#!/bin/sh\necho run\n", 0o755);
    write(&ws.join("gone.txt"), b"soon removed\n", 0o600);
    write(&ws.join("dir/keep.txt"), b"beta\r\ngamma", 0o644);
    write(&ws.join("blob.bin"), &[0, 159, 146, 150, 255], 0o644);
    let before = listing(&ws);

    let run = env
        .run(&["exec", "--preset", "full", "change things"])
        .await;
    run.expect_code(0);
    let id = run.session_id();
    let after = listing(&ws);
    assert_ne!(before, after);
    assert_eq!(after["a.txt"].2, b"alpha edited\n");
    assert!(!after.contains_key("gone.txt"), "bash ran: {}", run.stderr);
    // The terminal is told what the run changed, bash's changes included.
    assert!(
        run.stderr.contains("paddock: the run changed"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("modified  a.txt (+1 -1)"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("deleted   gone.txt"), "{}", run.stderr);

    // The session records where each turn started and what the run changed, bash included.
    let session = env.load(&id);
    let points: Vec<(u32, u32, bool)> = session
        .points
        .iter()
        .map(|p| (p.prompt, p.turn, p.checkpoint.is_some()))
        .collect();
    assert_eq!(
        points,
        [(1, 0, true), (1, 1, true), (1, 2, true), (1, 3, false)]
    );
    let changed: BTreeMap<String, ChangeKind> = session
        .events
        .iter()
        .find_map(|e| match e {
            AgentEvent::RunChanges { files, .. } => {
                Some(files.iter().map(|f| (f.path.clone(), f.kind)).collect())
            }
            _ => None,
        })
        .expect("the run lists its changes");
    for (path, kind) in [
        ("a.txt", ChangeKind::Modified),
        ("dir/keep.txt", ChangeKind::Modified),
        ("gone.txt", ChangeKind::Deleted),
        ("newdir/f.txt", ChangeKind::Created),
        ("newdir/empty", ChangeKind::Created),
        ("script.sh", ChangeKind::Modified),
        ("blob.bin", ChangeKind::Modified),
        ("link", ChangeKind::Created),
    ] {
        assert_eq!(changed.get(path), Some(&kind), "{path}: {changed:?}");
    }
    // The edit card's diff is in the session too.
    assert!(session.events.iter().any(|e| matches!(
        e,
        AgentEvent::ToolCallFinished { name, changes, .. } if name == "file_edit" && changes.len() == 1
    )));

    // A dry run shows the diff and changes nothing.
    let dry = env.run(&["rewind", &id, "--to", "1", "--dry-run"]).await;
    dry.expect_code(0);
    assert!(dry.stdout.contains("-alpha edited"), "{}", dry.stdout);
    assert!(dry.stdout.contains("+soon removed"), "{}", dry.stdout);
    assert!(dry.stderr.contains("would change"), "{}", dry.stderr);
    assert_eq!(listing(&ws), after, "a dry run changes nothing");

    let rewind = env.run(&["rewind", &id, "--to", "1"]).await;
    rewind.expect_code(0);
    assert!(
        rewind.stderr.contains("rewound the files and conversation"),
        "{}",
        rewind.stderr
    );
    assert_eq!(
        listing(&ws),
        before,
        "files, modes and links as before the prompt"
    );
    let session = env.load(&id);
    assert!(
        session.history.is_empty(),
        "the conversation went back before the prompt"
    );
    assert!(
        session.messages.len() >= 4,
        "the file keeps the rewound turns"
    );
    assert!(
        rewind
            .stderr
            .contains(&format!("undo with: paddock rewind {id} --undo")),
        "{}",
        rewind.stderr
    );

    // Previewing the undo shows its diff and changes nothing, files or conversation.
    let dry = env.run(&["rewind", &id, "--undo", "--dry-run"]).await;
    dry.expect_code(0);
    assert!(dry.stdout.contains("+alpha edited"), "{}", dry.stdout);
    assert!(dry.stderr.contains("nothing changed"), "{}", dry.stderr);
    assert_eq!(
        listing(&ws),
        before,
        "a dry run of the undo changes nothing"
    );
    assert!(env.load(&id).history.is_empty());
    assert_eq!(rewinds(&env, &id), 1);

    let undo = env.run(&["rewind", &id, "--undo"]).await;
    undo.expect_code(0);
    assert_eq!(listing(&ws), after, "the undo puts the later state back");
    let session = env.load(&id);
    assert_eq!(session.history, session.messages);
    assert_paired(&session.history);
    assert_eq!(rewinds(&env, &id), 2);

    // Undoing the undo rewinds again; a second undo of that works too.
    env.run(&["rewind", &id, "--undo"]).await.expect_code(0);
    assert_eq!(listing(&ws), before);
    env.run(&["rewind", &id, "--undo"]).await.expect_code(0);
    assert_eq!(listing(&ws), after);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rewinding_the_conversation_keeps_the_history_paired() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call("file_write", json!({"path": "n.txt", "content": "one\n"})),
        Reply::tool_call("file_write", json!({"path": "n.txt", "content": "two\n"})),
        Reply::text("Wrote it twice."),
        Reply::text("Continued."),
    ]);
    let env = Env::new(&server, json!({}));
    let run = env.run(&["exec", "--preset", "readwrite", "write"]).await;
    run.expect_code(0);
    let id = run.session_id();

    // Before turn 2 of prompt 1, conversation only: the files stay as they are.
    env.run(&["rewind", &id, "--to", "1.2", "--conversation-only"])
        .await
        .expect_code(0);
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("n.txt")).unwrap(),
        "two\n"
    );
    let session = env.load(&id);
    // The prompt, turn 1's call and its result.
    assert_eq!(session.history.len(), 3);
    assert_eq!(session.history[2].role, Role::User);
    assert_paired(&session.history);

    let next = env
        .run(&["resume", &id, "--preset", "readwrite", "go on"])
        .await;
    next.expect_code(0);
    let bodies = chat_bodies(&server);
    let last = bodies.last().unwrap();
    assert_wire_paired(last);
    let text = last.to_string();
    // The model sees turn 1 and its result, not the rewound turn 2.
    assert!(
        text.contains("Created n.txt") && !text.contains("Updated n.txt"),
        "{text}"
    );
    let conversation = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] != "system")
        .count();
    assert_eq!(conversation, 4, "{text}");
    assert!(
        env.run(&["rewind", &id, "--undo"]).await.code != 0,
        "a prompt ran since"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rewinds_refuse_what_they_cannot_do() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call("file_read", json!({"path": "x"})),
        Reply::text("Looked."),
    ]);
    let env = Env::new(&server, json!({}));
    let run = env.run(&["exec", "--preset", "readonly", "look"]).await;
    let id = run.session_id();
    // A read-only run recorded no files: only the conversation can go back.
    let files = env.run(&["rewind", &id, "--to", "1", "--files-only"]).await;
    files.expect_code(2);
    assert!(
        files.stderr.contains("conversation only"),
        "{}",
        files.stderr
    );
    let missing = env.run(&["rewind", &id, "--to", "5"]).await;
    assert_ne!(missing.code, 0);
    assert!(missing.stderr.contains("no prompt 5"), "{}", missing.stderr);
    env.run(&["rewind", &id, "--to", "x"]).await.expect_code(2);
    env.run(&["rewind", &id, "--undo"]).await.expect_code(2);
    env.run(&["rewind", &id, "--to", "1", "--conversation-only"])
        .await
        .expect_code(0);
    assert!(env.load(&id).history.is_empty());
}

/// A pseudo-random sequence (the seed is printed, so a failure can be replayed).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rewind_killed_at_any_point_ends_old_or_new_never_mixed() {
    const FILES: usize = 400;
    const KILLS: u64 = 14;
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call(
            "bash",
            json!({"command": "for f in d/*; do echo changed >> \"$f\"; done; rm -r e; \
                    mkdir -p z/y && echo new > z/y/n.txt"}),
        ),
        Reply::text("Changed everything."),
    ]);
    let env = Env::new(&server, json!({}));
    let ws = env.workspace();
    for i in 0..FILES {
        write(
            &ws.join(format!("d/f{i:03}.txt")),
            format!("{i}\n").repeat(200).as_bytes(),
            0o644,
        );
    }
    for i in 0..50 {
        write(&ws.join(format!("e/g{i}.txt")), b"to be removed\n", 0o644);
    }
    let old = listing(&ws);
    let run = env.run(&["exec", "--preset", "full", "change"]).await;
    run.expect_code(0);
    let id = run.session_id();
    let new = listing(&ws);
    assert_ne!(old, new);

    // How long an uninterrupted rewind takes, then back.
    let started = Instant::now();
    env.run(&["rewind", &id, "--to", "1", "--files-only"])
        .await
        .expect_code(0);
    let full = started.elapsed();
    assert_eq!(listing(&ws), old);
    env.run(&["rewind", &id, "--undo"]).await.expect_code(0);
    assert_eq!(listing(&ws), new);

    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    eprintln!("kill seed {seed}, an uninterrupted rewind took {full:?}");
    let mut rng = Lcg(seed);
    let (mut saw_old, mut saw_new) = (0, 0);
    for k in 0..KILLS {
        let events_before = rewinds(&env, &id);
        // Spread over the whole rewind, with jitter.
        let span = full.as_micros() as u64;
        let at = span * k / KILLS + rng.next() % (span / KILLS + 1);
        let mut child = env.spawn(&["rewind", &id, "--to", "1", "--files-only"]);
        tokio::time::sleep(Duration::from_micros(at)).await;
        let _ = child.start_kill();
        let _ = child.wait().await;
        // The next Paddock to look finishes what a crash left.
        env.run(&["rewind", &id, "--list"]).await.expect_code(0);
        let now = listing(&ws);
        let recorded = rewinds(&env, &id) - events_before;
        if now == old {
            saw_old += 1;
            assert_eq!(
                recorded, 1,
                "kill {k} at {at}µs: rewound but not recorded once"
            );
            env.run(&["rewind", &id, "--undo"]).await.expect_code(0);
            assert_eq!(listing(&ws), new);
        } else {
            assert!(now == new, "kill {k} at {at}µs left a mix of old and new");
            assert_eq!(
                recorded, 0,
                "kill {k} at {at}µs: recorded a rewind that did not happen"
            );
            saw_new += 1;
        }
    }
    eprintln!("ended old {saw_old} times, new {saw_new} times");
}
