//! What the model, a tool, a hook, a repository or a stored session wrote reaches the
//! terminal shown, not obeyed: escape sequences (OSC 52 sets the clipboard, OSC 0 the window
//! title, CSI 2J clears the screen, CSI 2K + CSI 1A erase the line above), a bell, an 8-bit
//! CSI, a right-to-left override and a lone carriage return are printed visibly by `paddock`,
//! and `--json` keeps them exact. Each test was run against the CLI without its renderer (the
//! text printed as it came, which is what main does) and failed as its doc comment says.

use paddock_fake_model::{FakeServer, Reply};
use paddock_protocol::AgentEvent;
use serde_json::{Value, json};

use crate::common::{Env, Run, git};
use crate::hooks::{hook_runs, script, set_hooks};

/// Every sequence of the issue, in words a model might hide them in.
const HOSTILE: &str = "ok\x1b]52;c;cm0gLXJmIH4=\x07 title\x1b]0;pwned\x07 gone\x1b[2K\x1b[1A \
                       clear\x1b[2J bell\x07 c1\u{9b}31m rlo\u{202e}txt.exe done\rfake";
/// [`HOSTILE`] as the terminal is to show it.
const SHOWN: &str = "ok^[]52;c;cm0gLXJmIH4=^G title^[]0;pwned^G gone^[[2K^[[1A \
                     clear^[[2J bell^G c1<U+009B>31m rlo<U+202E>txt.exe done^Mfake";

/// A file name with the sequences in it (a lone `\r` too).
const NAME: &str = "notes\x1b]0;pwned\x07\u{9b}2K\u{202e}\rx.txt";
const NAME_SHOWN: &str = "notes^[]0;pwned^G<U+009B>2K<U+202E>^Mx.txt";

/// Nothing in `text` a terminal would act on: no C0 but `\n`, `\t` and the `\r` of `\r\n`,
/// no DEL, no C1, no bidi override.
#[track_caller]
fn assert_inert(what: &str, text: &str) {
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let crlf = c == '\r' && chars.peek() == Some(&'\n');
        let control = matches!(c, '\0'..='\x1f' | '\x7f'..='\u{9f}');
        let bidi = matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        assert!(
            !bidi && (!control || matches!(c, '\n' | '\t') || crlf),
            "{what} has a raw {c:?}:\n{text:?}"
        );
    }
}

#[track_caller]
fn assert_inert_run(run: &Run) {
    assert_inert("stdout", &run.stdout);
    assert_inert("stderr", &run.stderr);
}

/// Whether a string anywhere in `value` passes `test`.
fn holds(value: &Value, test: impl Fn(&str) -> bool + Copy) -> bool {
    match value {
        Value::String(s) => test(s),
        Value::Array(a) => a.iter().any(|v| holds(v, test)),
        Value::Object(o) => o.values().any(|v| holds(v, test)),
        _ => false,
    }
}

/// Fails on main: the raw ESC of the OSC 52 reached stdout (the answer was written as
/// streamed, so the terminal would set the clipboard, the title, and erase the line above).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answers_escape_sequences_are_shown_not_obeyed() {
    let server = FakeServer::start().await.unwrap();
    // Small deltas: sequences, and the `\r`, are cut across them.
    server.push(Reply::text(format!("{HOSTILE}\r\nnext line\r")).with_chunk_chars(3));
    let env = Env::new(&server, json!({}));
    let run = env.run(&["exec", "say it"]).await;
    run.expect_code(0);
    assert_inert_run(&run);
    assert_eq!(run.stdout, format!("{SHOWN}\r\nnext line^M\n"));
}

/// Fails on main: `--json` passed the 8-bit CSI and the RLO through raw (serde_json escapes
/// only C0).
/// The values stay exact: the deltas and the whole answer parse back to what the model sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_keeps_the_answer_exact_and_the_bytes_inert() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text(HOSTILE).with_chunk_chars(5));
    let env = Env::new(&server, json!({}));
    let run = env.run(&["exec", "--json", "say it"]).await;
    run.expect_code(0);
    assert_inert_run(&run);
    let deltas: String = run
        .json()
        .events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, HOSTILE);
    let message = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["type"] == "message")
        .expect("the message record");
    assert_eq!(message["text"], HOSTILE);
}

/// Fails on main: the plan's step reached stderr with its raw ESC, and so did the tool line
/// of a call whose file name carried the sequences, its error, and the run's list of changes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_steps_tool_lines_and_file_names_are_shown_not_obeyed() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call(
            "todo_write",
            json!({"todos": [{"content": HOSTILE, "status": "pending"}]}),
        ),
        Reply::tool_call("file_write", json!({"path": NAME, "content": "x\n"})),
        Reply::tool_call("file_read", json!({"path": format!("missing-{NAME}")})),
        Reply::text("done"),
    ]);
    let env = Env::new(&server, json!({"preset": "readwrite"}));
    std::fs::create_dir_all(env.workspace()).unwrap();
    let run = env.run(&["exec", "plan and write"]).await;
    run.expect_code(0);
    assert_inert_run(&run);
    let stderr = &run.stderr;
    // The plan's step folds whitespace (the `\r` too); the sequences stay visible.
    let step = SHOWN.replace("^M", " ");
    assert!(stderr.contains(&format!("[ ] {step}")), "{stderr}");
    // The tool line's summary folds whitespace (a `\r` too); the sequences stay visible.
    assert!(
        stderr.contains("tool file_write notes^[]0;pwned^G<U+009B>2K<U+202E> x.txt -> ok"),
        "{stderr}"
    );
    assert!(
        stderr
            .contains("tool file_read missing-notes^[]0;pwned^G<U+009B>2K<U+202E> x.txt -> error"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("created   {NAME_SHOWN}")),
        "{stderr}"
    );
    // The file itself has the name the model gave it.
    assert!(env.workspace().join(NAME).is_file());
}

/// Fails on main: `sessions list` printed the title (the first prompt's line) with its raw
/// ESC, `sessions show` the answer, and `rewind --dry-run` the file's text in its diff.
/// The JSON export keeps every value exact.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stored_sessions_and_diffs_are_shown_not_obeyed() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call(
            "file_write",
            json!({"path": "a.txt", "content": format!("{HOSTILE}\n")}),
        ),
        Reply::text(HOSTILE),
    ]);
    let env = Env::new(&server, json!({"preset": "readwrite"}));
    std::fs::create_dir_all(env.workspace()).unwrap();
    // A prompt from a file a stranger wrote (an issue's text, say).
    let run = env
        .run_with_stdin(&["exec", "-"], &format!("{HOSTILE}\n"))
        .await;
    run.expect_code(0);
    let id = run.session_id();

    let list = env.run(&["sessions", "list"]).await;
    list.expect_code(0);
    assert_inert_run(&list);
    assert!(list.stdout.contains("ok^[]52;c;"), "{}", list.stdout);

    let show = env.run(&["sessions", "show", &id]).await;
    show.expect_code(0);
    assert_inert_run(&show);
    assert!(show.stdout.contains(SHOWN), "{}", show.stdout);

    let dry = env.run(&["rewind", &id, "--to", "1", "--dry-run"]).await;
    dry.expect_code(0);
    assert_inert_run(&dry);
    // The rewind deletes the file: its text is the diff's removed side.
    assert!(
        dry.stdout.contains("-ok^[]52;c;") && dry.stdout.contains("<U+202E>txt.exe done^M"),
        "{}",
        dry.stdout
    );

    let export = env
        .run(&["sessions", "export", &id, "--format", "json"])
        .await;
    export.expect_code(0);
    assert_inert_run(&export);
    let exported: Value = serde_json::from_str(&export.stdout).unwrap();
    assert!(
        holds(&exported, |s| s == HOSTILE),
        "the exact answer is in the export: {exported}"
    );
}

/// Fails on main: the hook's reason (what its script printed, a file the project's author
/// wrote) reached stderr with its raw ESC; `--json` keeps the reason exact.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hooks_output_is_shown_not_obeyed() {
    let server = FakeServer::start().await.unwrap();
    let bash = || Reply::tool_call("bash", json!({"command": "touch ran"}));
    server.push_all([
        bash(),
        Reply::text("refused"),
        bash(),
        Reply::text("refused"),
    ]);
    let env = Env::new(&server, json!({"preset": "full"}));
    std::fs::create_dir_all(env.workspace()).unwrap();
    std::fs::write(env.project().join(".paddock/hooks-said.txt"), HOSTILE).unwrap();
    let refuse = script(
        &env,
        "refuse.sh",
        "#!/bin/sh\ncat \"$PADDOCK_PROJECT_DIR/.paddock/hooks-said.txt\" >&2\nexit 2\n",
    );
    set_hooks(
        &env,
        &server,
        json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": refuse}
        ]}]}),
        true,
    );
    let run = env.run(&["exec", "run it"]).await;
    run.expect_code(8);
    assert_inert_run(&run);
    assert!(run.stderr.contains(SHOWN), "{}", run.stderr);

    let json = env.run(&["exec", "--json", "run it"]).await;
    json.expect_code(8);
    assert_inert_run(&json);
    let hooks = hook_runs(&json.json().events);
    assert!(
        hooks.iter().any(|(_, _, said)| said.contains(HOSTILE)),
        "{hooks:?}"
    );
}

/// Fails on main: a worktree's setup output (a command the repository names, its output the
/// repository's), the changed file's name in `worktree changes` and the commit message the
/// model proposed all reached the terminal with their raw ESC.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn worktree_setup_changes_and_proposed_messages_are_shown_not_obeyed() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call("file_write", json!({"path": NAME, "content": "x\n"})),
        Reply::text("Done."),
        Reply::text(format!("Add a file\n\n{HOSTILE}")),
    ]);
    let mut env = Env::new(
        &server,
        json!({"workspace": "project", "preset": "readwrite",
               "worktree": {"setup": "cat said.txt"}}),
    );
    env.set_env(
        "PADDOCK_WORKTREES_DIR",
        &env.home().join("worktrees").display().to_string(),
    );
    let project = env.project();
    std::fs::write(project.join("said.txt"), format!("{HOSTILE}\n")).unwrap();
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["add", "."]);
    git(&project, &["commit", "-qm", "base"]);

    let run = env.run(&["exec", "--worktree=esc", "add a file"]).await;
    run.expect_code(0);
    assert_inert_run(&run);
    assert!(
        run.stderr.contains(&format!("  | {SHOWN}")),
        "{}",
        run.stderr
    );

    let changes = env.run(&["worktree", "changes", "esc"]).await;
    changes.expect_code(0);
    assert_inert_run(&changes);
    let listed = env.run(&["worktree", "changes", "esc", "--json"]).await;
    listed.expect_code(0);
    assert_inert_run(&listed);
    let listed_json: Value = serde_json::from_str(&listed.stdout).unwrap();
    assert!(
        holds(&listed_json, |s| s.contains(NAME)),
        "the JSON names the file exactly: {listed_json}"
    );

    let committed = env.run(&["worktree", "commit", "esc", "--propose"]).await;
    committed.expect_code(0);
    assert_inert_run(&committed);
    assert!(committed.stderr.contains(SHOWN), "{}", committed.stderr);
}

/// Fails on main: `doctor` and the refused run's error quoted the address a cloned
/// repository's settings name with its raw ESC; clap's error quoted an argument with its raw
/// C1 and RLO (a script may pass a model's text); an error naming a path did too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_and_errors_quote_what_they_were_given_shown_not_obeyed() {
    let server = FakeServer::start().await.unwrap();
    let env = Env::new(&server, json!({}));
    let url = format!("http://127.0.0.1:9/{}", HOSTILE.replace(' ', "_"));
    env.write_untrusted_settings(
        &json!({"version": 1, "provider": "openai-compatible", "baseUrl": url,
                "model": "fake-model"})
        .to_string(),
    );
    let doctor = env.run(&["doctor"]).await;
    assert_inert_run(&doctor);
    assert!(
        doctor.stdout.contains(&SHOWN.replace(' ', "_")),
        "{}",
        doctor.stdout
    );

    // A run there is refused, its error quoting the same address.
    let refused = env.run(&["exec", "x"]).await;
    assert_inert_run(&refused);
    assert!(
        refused.stderr.contains(&SHOWN.replace(' ', "_")),
        "{}",
        refused.stderr
    );

    // The rest in a folder whose settings are trusted, so the run gets as far as the flags.
    let env = Env::new(&server, json!({}));
    let usage = env.run(&["exec", "--preset", HOSTILE, "x"]).await;
    usage.expect_code(2);
    assert_inert_run(&usage);
    assert!(usage.stderr.contains(SHOWN), "{}", usage.stderr);

    let missing = format!("missing-{NAME}.png");
    let image = env.run(&["exec", "--image", &missing, "x"]).await;
    assert_inert_run(&image);
    assert!(
        image.stderr.contains(&format!("missing-{NAME_SHOWN}.png")),
        "{}",
        image.stderr
    );
}
