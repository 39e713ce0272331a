//! Which files a hook's command names (`Hook::scripts`), for every layout Paddock runs
//! (Claude Code's `$CLAUDE_PROJECT_DIR/.claude/hooks`, Codex's `.codex/hooks`, Paddock's
//! `.paddock/hooks`) and every interpreter form (`sh file`, `bash file`, `./file`,
//! `python3 file`, `node file`), quoted or through variables. On main these do not build:
//! there was no `Hook::scripts`, nothing to pin, trust covered the command text only, and a
//! rewritten script ran on the old trust (issue 50, item 4; the host's `hook_pins` tests show
//! that end to end).

use paddock_hooks::{CommandScripts, ScriptPath, text_paths};
use serde_json::json;

use crate::common::{one, only};

fn scan(command: &str) -> CommandScripts {
    only(&one("PreToolUse", json!({ "command": command }))).scripts()
}

fn project(p: &str) -> ScriptPath {
    ScriptPath::Project(p.into())
}

fn written(p: &str) -> ScriptPath {
    ScriptPath::AsWritten(p.into())
}

fn assert_names(command: &str, want: &ScriptPath) {
    let s = scan(command);
    assert!(s.paths.contains(want), "{command}: {want:?} not in {s:?}");
    assert_eq!(s.unexpanded, None, "{command}: {s:?}");
}

#[test]
fn every_layout_and_interpreter_form_names_its_script() {
    for (dir, var) in [
        (".claude/hooks", "CLAUDE_PROJECT_DIR"),
        (".codex/hooks", "CLAUDE_PROJECT_DIR"),
        (".paddock/hooks", "PADDOCK_PROJECT_DIR"),
    ] {
        for (run, file) in [
            ("sh", "guard.sh"),
            ("bash", "guard.sh"),
            ("python3", "guard.py"),
            ("node", "guard.js"),
        ] {
            let rel = format!("{dir}/{file}");
            assert_names(&format!("{run} \"${var}\"/{rel}"), &project(&rel));
            assert_names(&format!("{run} \"${{{var}}}/{rel}\""), &project(&rel));
            assert_names(&format!("{run} ${var}/{rel} --quiet"), &project(&rel));
            assert_names(&format!("{run} {rel}"), &written(&rel));
            assert_names(&format!("{run} './{rel}'"), &written(&format!("./{rel}")));
        }
        let rel = format!("{dir}/guard");
        assert_names(&format!("./{rel}"), &written(&format!("./{rel}")));
        assert_names(&format!("\"${var}/{rel}\""), &project(&rel));
        assert_names(
            &format!("cd \"${var}\" && ./{rel}"),
            &written(&format!("./{rel}")),
        );
    }
}

#[test]
fn quotes_escapes_and_spaces_are_read_as_the_shell_reads_them() {
    assert_names(
        r#"bash "$PADDOCK_PROJECT_DIR/.paddock/hooks/a b.sh""#,
        &project(".paddock/hooks/a b.sh"),
    );
    assert_names(
        r#"'./.codex/hooks/it'"'"'s.sh' --x"#,
        &written("./.codex/hooks/it's.sh"),
    );
    assert_names(r"sh ./x\ y.sh", &written("./x y.sh"));
    assert_names(
        r#"sh "$CLAUDE_PROJECT_DIR"'/.claude/hooks/q.sh'"#,
        &project(".claude/hooks/q.sh"),
    );
    // A module path without its ending: the files node and python would load.
    assert_names("node ./hooks/guard", &written("./hooks/guard.js"));
    assert_names("node \"$CLAUDE_PROJECT_DIR/guard\"", &project("guard.js"));
    // Inline code and nested commands name their files too.
    assert_names(
        r#"python3 -c "exec(open('hooks/g.py').read())""#,
        &written("hooks/g.py"),
    );
    // (Its output, from the project, is an argument here: unknown, conservatively.)
    let s = scan(r#"echo "$(sh .claude/hooks/inner.sh)""#);
    assert!(
        s.paths.contains(&written(".claude/hooks/inner.sh")),
        "{s:?}"
    );
    let s = scan("CONFIG=./c.toml ./run --x=./y.json");
    for p in ["./c.toml", "./run", "./y.json"] {
        assert!(s.paths.contains(&written(p)), "{p}: {s:?}");
    }
}

#[test]
fn a_script_paddock_cannot_spell_out_is_unknown() {
    for line in [
        r#"sh "$CLAUDE_PROJECT_DIR/.claude/hooks/$NAME.sh""#,
        "sh .claude/hooks/*.sh",
        "$RUNNER --check",
        r#"sh "$(ls .claude/hooks | head -1)""#,
        r#"sh "${CLAUDE_PROJECT_DIR:-.}/x.sh""#,
        "sh $PWD/x.sh",
        "sh .claude/{a,b}.sh",
        "sh `echo x`/y.sh",
    ] {
        let s = scan(line);
        assert!(s.unexpanded.is_some(), "{line}: {s:?}");
    }
    // An argument that is only data, not a path or a command: the script is still known.
    assert_names(
        r#"python3 ./check.py "$1" --at "$(date)""#,
        &written("./check.py"),
    );
    // Claude Code's formatter and logging examples, and the test command `[`.
    let s = scan(r#"npx prettier --write "$(jq -r '.tool_input.file_path')""#);
    assert_eq!(s.unexpanded, None, "{s:?}");
    assert_names(
        r#"jq -r '.tool_input.command' >> ~/.claude/log.txt"#,
        &written("~/.claude/log.txt"),
    );
    assert_names(
        r#"[ -f "$CLAUDE_PROJECT_DIR/x.sh" ] && sh "$CLAUDE_PROJECT_DIR/x.sh" 2>&1"#,
        &project("x.sh"),
    );
}

#[test]
fn a_program_with_args_is_read_word_for_word() {
    let config = crate::common::config(json!({"PreToolUse": [{"hooks": [
        {"type": "command", "command": "./fmt", "args": ["$CLAUDE_PROJECT_DIR/x", "a b.py"]}
    ]}]}));
    let s = only(&config).scripts();
    assert!(s.paths.contains(&written("./fmt")), "{s:?}");
    assert!(s.paths.contains(&written("a b.py")), "{s:?}");
    assert_eq!(s.unexpanded, None, "no shell expands anything: {s:?}");
}

#[test]
fn a_scripts_text_names_what_it_sources_requires_and_imports() {
    let text = "#!/bin/sh\n. \"$(dirname \"$0\")/lib.sh\"\nsource ./common\n\
                const x = require('./util');\nimport helper, json as j\n\
                from pkg.sub import f\n";
    let found = text_paths(text);
    for want in [
        "/lib.sh",
        "./common.sh",
        "./util.js",
        "helper.py",
        "json.py",
        "pkg/sub.py",
        "pkg/__init__.py",
    ] {
        assert!(found.iter().any(|f| f == want), "{want}: {found:?}");
    }
}
