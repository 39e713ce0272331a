//! What `parse_command` makes of a command: its parts, their words and roles, and the
//! constructs that force an Ask; and that hostile input ends in an error, never a crash.

use paddock_rules::shell::{ConcernKind, MAX_COMMAND_BYTES, MAX_NESTING, MAX_PARTS, Role, Word};
use paddock_rules::{ParseError, Parsed, parse_command};

fn parsed(cmd: &str) -> Parsed {
    parse_command(cmd).unwrap_or_else(|e| panic!("{cmd:?}: {e}"))
}

/// Each part's words as text, with its role.
fn parts(cmd: &str) -> Vec<(Role, String)> {
    parsed(cmd)
        .parts
        .iter()
        .map(|p| (p.role, p.text()))
        .collect()
}

fn kinds(cmd: &str) -> Vec<ConcernKind> {
    parsed(cmd).concerns.into_iter().map(|c| c.kind).collect()
}

fn lit(s: &str) -> Word {
    Word::Literal(s.to_owned())
}

#[test]
fn lists_every_simple_command_in_order() {
    let got = parts("a 1 && b 2 || c; d | e & f\ng");
    let names: Vec<&str> = got.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(names, ["a 1", "b 2", "c", "d", "e", "f", "g"]);
    let got = parts(
        "if a; then b; elif c; then d; else e; fi; while f; do g; done; for x in y; do h; done",
    );
    let names: Vec<&str> = got.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(names, ["a", "b", "c", "d", "e", "f", "g", "h"]);
    let got = parts("(a; { b; }); f() { c; }; case x in y) d;; esac; coproc e");
    let names: Vec<&str> = got.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(names, ["a", "b", "c", "d", "e"]);
}

#[test]
fn words_after_quote_removal() {
    let p = parsed("'git' \"st\"a'tus' a\\ b \"\" $'x'");
    assert_eq!(
        p.parts[0].words,
        vec![lit("git"), lit("status"), lit("a b"), lit(""), lit("x")]
    );
    assert!(p.concerns.is_empty());
}

#[test]
fn env_prefixes_are_not_words() {
    let p = parsed("RUST_LOG=debug A='x y' cargo test");
    assert_eq!(p.parts[0].words, vec![lit("cargo"), lit("test")]);
    assert!(p.concerns.is_empty());
    assert_eq!(
        kinds("PATH=/x ls"),
        vec![ConcernKind::Environment("PATH".into())]
    );
    assert_eq!(
        kinds("LD_PRELOAD=x ls"),
        vec![ConcernKind::Environment("LD_PRELOAD".into())]
    );
    assert_eq!(
        kinds("npm_config_script_shell=x npm test"),
        vec![ConcernKind::Environment("npm_config_script_shell".into())]
    );
}

#[test]
fn wrappers_become_wrapper_and_inner_parts() {
    assert_eq!(
        parts("timeout -s KILL 5 nice -n 3 env A=1 cargo test"),
        vec![
            (
                Role::Wrapper,
                "timeout -s KILL 5 nice -n 3 env A=1 cargo test".to_owned()
            ),
            (Role::Wrapper, "nice -n 3 env A=1 cargo test".to_owned()),
            (Role::Wrapper, "env A=1 cargo test".to_owned()),
            (Role::Command, "cargo test".to_owned()),
        ]
    );
    assert_eq!(
        parts("sudo -u bob ls"),
        vec![
            (Role::Command, "sudo -u bob ls".to_owned()),
            (Role::Command, "ls".to_owned())
        ]
    );
    let p = parsed("ls | xargs -0 grep -l x");
    assert_eq!(
        p.parts[2].words.last(),
        Some(&Word::Many {
            raw: "(xargs input)".into(),
            glob: None
        })
    );
    let p = parsed("xargs -I % mv % dest/");
    assert_eq!(
        p.parts[1].words,
        vec![lit("mv"), Word::One("%".into()), lit("dest/")]
    );
}

#[test]
fn shell_strings_are_parsed() {
    assert_eq!(
        parts("bash -c 'ls && cat x'"),
        vec![
            (Role::Wrapper, "bash -c 'ls && cat x'".to_owned()),
            (Role::Command, "ls".to_owned()),
            (Role::Command, "cat x".to_owned()),
        ]
    );
    assert_eq!(
        kinds("sh -c \"$X\""),
        vec![ConcernKind::ShellString("sh -c".into())]
    );
    assert_eq!(
        kinds("sudo -s ls"),
        vec![ConcernKind::Resplit("sudo -s".into())]
    );
    assert_eq!(
        kinds("env -S 'ls -l'"),
        vec![ConcernKind::Resplit("env -S".into())]
    );
    assert!(matches!(
        kinds("sh -c 'ls ;;'").as_slice(),
        [ConcernKind::Unparsed(_)]
    ));
}

#[test]
fn probes_for_text_under_constructs_that_ask() {
    let p = parsed("eval 'rm -rf x'");
    assert_eq!(p.parts[1].role, Role::Probe);
    assert_eq!(p.parts[1].text(), "rm -rf x");
    let p = parsed("find . -exec rm {} +");
    assert_eq!(p.parts[1].role, Role::Probe);
    assert_eq!(p.parts[1].words, vec![lit("rm"), Word::One("{}".into())]);
    assert_eq!(p.concerns[0].lift, Some(0));
    assert!(!p.forced_ask());
}

#[test]
fn substitution_bodies_are_parts() {
    let p = parsed("echo \"$(git status; `rm x`)\"");
    let texts: Vec<String> = p.parts.iter().map(|x| x.text()).collect();
    // The backquotes' output is itself run as a command, whose name is only known then.
    assert_eq!(
        texts,
        [
            "git status",
            "rm x",
            "`rm x`",
            "echo \"$(git status; `rm x`)\""
        ]
    );
    let kinds: Vec<ConcernKind> = p.concerns.into_iter().map(|c| c.kind).collect();
    assert_eq!(
        kinds,
        [
            ConcernKind::CommandSubstitution,
            ConcernKind::CommandSubstitution,
            ConcernKind::DynamicName
        ]
    );
}

#[test]
fn concern_kinds() {
    assert_eq!(kinds("cat <(ls)"), vec![ConcernKind::ProcessSubstitution]);
    assert_eq!(kinds("echo $((a))"), vec![ConcernKind::Arithmetic]);
    assert_eq!(
        kinds("source x"),
        vec![ConcernKind::RunsText("source".into())]
    );
    assert_eq!(kinds("$X y"), vec![ConcernKind::DynamicName]);
    assert_eq!(
        kinds("node <<< 'x'"),
        vec![ConcernKind::InterpreterStdin {
            name: "node".into(),
            pipe: false
        }]
    );
    assert_eq!(
        kinds("cat x | python3"),
        vec![ConcernKind::InterpreterStdin {
            name: "python3".into(),
            pipe: true
        }]
    );
    assert!(kinds("cat x | python3 tool.py").is_empty());
    assert!(kinds("cat x | python3 -m json.tool").is_empty());
    assert_eq!(kinds("ls > /tmp/x").len(), 1);
    assert!(kinds("ls > /dev/null 2>&1 <&0").is_empty());
    assert_eq!(kinds("git status\r"), vec![ConcernKind::ControlCharacter]);
    assert!(matches!(
        kinds("timeout --frobnicate 5 ls").as_slice(),
        [ConcernKind::WrapperOption(_)]
    ));
    assert_eq!(kinds("declare -i n=1"), vec![ConcernKind::Arithmetic]);
    assert_eq!(
        kinds("read -r PATH"),
        vec![ConcernKind::Environment("PATH".into())]
    );
    assert!(kinds("printf '%s' PATH").is_empty());
    assert_eq!(
        kinds("printf -v PATH x"),
        vec![ConcernKind::Environment("PATH".into())]
    );
}

#[test]
fn limits_are_errors() {
    assert!(matches!(
        parse_command(&"a".repeat(MAX_COMMAND_BYTES + 1)),
        Err(ParseError::TooLong { .. })
    ));
    assert!(matches!(
        parse_command(&format!(
            "{}ls{}",
            "(".repeat(MAX_NESTING + 1),
            ")".repeat(MAX_NESTING + 1)
        )),
        Err(ParseError::TooDeep { .. })
    ));
    assert!(matches!(
        parse_command(&"ls;".repeat(MAX_PARTS + 1)),
        Err(ParseError::TooManyParts { .. })
    ));
    assert!(parse_command(&"ls;".repeat(MAX_PARTS)).is_ok());
    assert!(matches!(
        parse_command("ls ;; ls"),
        Err(ParseError::Syntax(_))
    ));
}

/// brush-parser recurses per nesting level and a stack overflow aborts the whole process:
/// the deepest nesting allowed must parse on a 2 MiB thread (a tokio worker's stack) even
/// in a debug build. Without the nesting limit, 1,000 levels of `{` or of `!` in a test,
/// or 30,000 `&&` in a test (freed recursively), or 3,000 `coproc`, abort this test binary.
#[test]
fn deepest_allowed_nesting_fits_a_small_stack() {
    let d = MAX_NESTING;
    let inputs = [
        format!("{}ls{}", "( ".repeat(d), " )".repeat(d)),
        format!("{}ls;{}", "{ ".repeat(d), " }".repeat(d)),
        format!("{}ls{}", "if a; then ".repeat(d), "; fi".repeat(d)),
        format!("echo {}x{}", "\"$(echo ".repeat(d / 2), ")\"".repeat(d / 2)),
        format!("{}ls{}", "while a; do ".repeat(d), "; done".repeat(d)),
        "sh -c \"sh -c 'sh -c ls'\"".to_owned(),
        format!("[[ {}a ]]", "! ".repeat(d - 2)),
        format!("[[ a {}]]", "&& a ".repeat(d - 2)),
        format!("{}ls;{}", "{ ".repeat(1000), " }".repeat(1000)),
        format!("[[ {}a ]]", "! ".repeat(1000)),
        format!("[[ a {}]]", "&& a ".repeat(30000)),
        format!("{}ls", "coproc ".repeat(3000)),
    ];
    let handle = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            inputs
                .iter()
                .map(|i| parse_command(i).is_ok())
                .collect::<Vec<bool>>()
        })
        .expect("spawn");
    let results = handle.join().expect("no stack overflow or panic");
    assert_eq!(
        results,
        [
            true, true, true, true, true, true, true, true, false, false, false, false
        ]
    );
}

/// Numbers brush-parser cannot hold make it panic (it unwraps their parse): they must come
/// back as errors, never unwind into the caller.
#[test]
fn numbers_that_overflow_the_parser_are_errors() {
    for cmd in [
        "cat ~+99999999999999999999999",
        "echo 99999999999999999999999>x",
        "echo {1..99999999999999999999999}",
    ] {
        assert!(
            matches!(parse_command(cmd), Err(ParseError::Syntax(_))),
            "{cmd:?}"
        );
    }
}

/// brush-parser 0.4 allocates without end (the process aborts) when a text ends while it
/// waits for the line after a here-document operator; these were found by the fuzz tests
/// here. Without the final newline `parse_program` adds, this test aborts the test binary.
#[test]
fn unfinished_here_documents_are_errors_not_aborts() {
    for cmd in [
        "$(<<  ",
        "$(cat <<  ",
        "$(cat <<-\t ",
        "<<E$[\t\t",
        "<<$(  ",
        "}<<$[\t\t)|] \\\n",
        "&&E;  $(<<-  E $[] ",
        "\\ = ) .. ) & !{$( $[1]status <<  cdx a[1]=2 fi ",
        "ls \n $(é \t 'a b'<< |& |status ~/x   A=1 >&2é &> é ",
    ] {
        assert!(
            matches!(parse_command(cmd), Err(ParseError::Syntax(_))),
            "{cmd:?}"
        );
    }
}
