//! Property tests: chains of allowed, denied and unmatched commands in any spelling get the
//! decision of their parts; quoting round-trips through proposals; the parser never panics.

use std::path::Path;

use paddock_rules::{Action, Rules, parse_command, propose};
use proptest::prelude::*;
use serde_json::json;

use crate::common::{WORKSPACE, bash, bash_rules};

fn rules() -> Rules {
    bash_rules(&[
        (Action::Allow, "git status"),
        (Action::Allow, "git diff *"),
        (Action::Allow, "ls *"),
        (Action::Allow, "cargo test *"),
        (Action::Allow, "echo *"),
        (Action::Deny, "rm -rf *"),
        (Action::Deny, "git push *"),
    ])
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Allowed,
    Denied,
    Unmatched,
}

const ALLOWED: &[&[&str]] = &[
    &["git", "status"],
    &["git", "diff", "--stat", "HEAD~1"],
    &["ls", "-la", "src dir"],
    &["cargo", "test", "-p", "core"],
    &["echo", "hello world"],
    &["echo", "a;b && c | d"],
    &["echo", "it's \"quoted\" $HOME `x` \\ *"],
    &["git", "diff"],
];
const DENIED: &[&[&str]] = &[
    &["rm", "-rf", "build"],
    &["git", "push", "origin", "main"],
    &["rm", "-rf"],
];
const UNMATCHED: &[&[&str]] = &[
    &["mv", "a", "b"],
    &["touch", "x y"],
    &["git", "status", "-s"],
];

/// One way to spell a word so bash reads it back exactly.
fn spell(word: &str, how: u8) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=,+@%^~".contains(c))
        && !word.starts_with('~');
    let single = || format!("'{}'", word.replace('\'', "'\\''"));
    let double = || {
        let mut s = String::from("\"");
        for c in word.chars() {
            if matches!(c, '"' | '\\' | '$' | '`') {
                s.push('\\');
            }
            s.push(c);
        }
        s.push('"');
        s
    };
    match how % 6 {
        0 if plain => word.to_owned(),
        1 => double(),
        2 => {
            // A backslash before every character.
            word.chars().flat_map(|c| ['\\', c]).collect::<String>()
                + if word.is_empty() { "''" } else { "" }
        }
        3 if word.len() >= 2 && word.is_char_boundary(1) => {
            let (a, b) = word.split_at(1);
            format!("{}{}", spell(a, 1), spell(b, 4))
        }
        4 => single(),
        5 if !word.contains(['\\', '\'']) => format!("$'{word}'"),
        _ => single(),
    }
}

fn command(words: &[&str], hows: &[u8]) -> String {
    words
        .iter()
        .zip(hows.iter().cycle())
        .map(|(w, h)| spell(w, *h))
        .collect::<Vec<_>>()
        .join(" ")
}

const OPERATORS: &[&str] = &[" && ", " || ", "; ", ";", " | ", " & ", "\n", " |& "];
const WRAPS: usize = 6;

fn wrap(cmd: String, how: usize) -> String {
    match how % WRAPS {
        1 => format!("( {cmd} )"),
        2 => format!("{{ {cmd}; }}"),
        3 => format!("timeout 5 {cmd}"),
        4 => format!("RUST_LOG=debug {cmd}"),
        5 => format!("nohup {cmd}"),
        _ => cmd,
    }
}

fn pick(kind: Kind, i: usize) -> &'static [&'static str] {
    let pool = match kind {
        Kind::Allowed => ALLOWED,
        Kind::Denied => DENIED,
        Kind::Unmatched => UNMATCHED,
    };
    pool[i % pool.len()]
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![4 => Just(Kind::Allowed), 1 => Just(Kind::Denied), 1 => Just(Kind::Unmatched)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn decision_is_that_of_the_parts(
        parts in prop::collection::vec((kind(), any::<usize>(), prop::collection::vec(any::<u8>(), 1..6), 0..WRAPS), 1..8),
        ops in prop::collection::vec(0..OPERATORS.len(), 8),
    ) {
        let mut cmd = String::new();
        for (i, (k, which, hows, w)) in parts.iter().enumerate() {
            if i > 0 {
                cmd.push_str(OPERATORS[ops[i % ops.len()]]);
            }
            cmd.push_str(&wrap(command(pick(*k, *which), hows), *w));
        }
        let kinds: Vec<Kind> = parts.iter().map(|p| p.0).collect();
        let expected = if kinds.contains(&Kind::Denied) {
            Some(Action::Deny)
        } else if kinds.contains(&Kind::Unmatched) {
            None
        } else {
            Some(Action::Allow)
        };
        let verdict = bash(&rules(), &cmd);
        prop_assert_eq!(verdict.action, expected, "{:?}: {}", cmd, verdict.why);
    }

    #[test]
    fn a_substitution_anywhere_is_never_allowed(
        parts in prop::collection::vec((any::<usize>(), prop::collection::vec(any::<u8>(), 1..4)), 1..5),
        at in any::<usize>(),
        sub in prop_oneof![Just("$(id)"), Just("`id`"), Just("\"$(id)\""), Just("<(id)"), Just("$(rm -rf x)")],
    ) {
        let mut words: Vec<String> = Vec::new();
        for (which, hows) in &parts {
            if !words.is_empty() {
                words.push("&&".to_owned());
            }
            words.push(command(pick(Kind::Allowed, *which), hows));
        }
        let at = at % (words.len() + 1);
        words.insert(at, sub.to_owned());
        // Inserted at the very front it is the command name; elsewhere an argument.
        let cmd = words.join(" ");
        let verdict = bash(&rules(), &cmd);
        prop_assert_ne!(verdict.action, Some(Action::Allow), "{:?}", cmd);
        prop_assert_eq!(propose("bash", &json!({ "command": cmd }), Path::new(WORKSPACE)), None);
    }

    #[test]
    fn quoted_words_read_back_and_proposals_allow_them(
        args in prop::collection::vec("[^\\p{Cc}\\p{Cf}]{0,12}", 0..5),
        hows in prop::collection::vec(any::<u8>(), 1..5),
        name in prop_oneof![Just("git"), Just("ls"), Just("/usr/bin/cargo"), Just("./x.sh"), Just("my-tool")],
    ) {
        let mut words = vec![name.to_owned()];
        words.extend(args.iter().cloned());
        let refs: Vec<&str> = words.iter().map(String::as_str).collect();
        let cmd = command(&refs, &hows);
        let parsed = parse_command(&cmd).map_err(|e| TestCaseError::fail(format!("{cmd:?}: {e}")))?;
        prop_assert_eq!(parsed.parts.len(), 1, "{:?}", cmd);
        let read: Option<Vec<&str>> = parsed.parts[0].literal_words();
        prop_assert_eq!(read, Some(refs.clone()), "{:?}", cmd);
        if let Some(patterns) = propose("bash", &json!({ "command": cmd }), Path::new(WORKSPACE)) {
            let rules = bash_rules(&patterns.iter().map(|p| (Action::Allow, p.as_str())).collect::<Vec<_>>());
            prop_assert_eq!(bash(&rules, &cmd).action, Some(Action::Allow), "{:?} {:?}", cmd, patterns);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    #[test]
    fn parse_never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = parse_command(&text);
        let _ = bash(&rules(), &text);
    }

    #[test]
    fn parse_never_panics_on_shell_text(text in "[a-z0-9 $(){}\\[\\]`'\"\\\\|&;<>!#*?=~.,:+@%^\n\t-]{0,120}") {
        let _ = parse_command(&text);
        let verdict = bash(&rules(), &text);
        prop_assert!(!verdict.why.is_empty());
    }

    #[test]
    fn parse_never_panics_on_strings(text in any::<String>()) {
        let _ = parse_command(&text);
    }

    /// Here-documents in every state of closing, inside substitutions and expansions: the
    /// parser once allocated without end on some of these (the process aborts, so a
    /// failure here is a crashed test binary).
    #[test]
    fn here_documents_never_hang_the_parser(
        picks in prop::collection::vec(0..HERE_TOKENS.len(), 0..16)
    ) {
        let text: String = picks.iter().map(|&i| HERE_TOKENS[i]).collect();
        let _ = parse_command(&text);
    }
}

const HERE_TOKENS: &[&str] = &[
    "<<", "<<-", "<<<", "$(", "$[", "${", "$((", "`", "'", "\"", " ", "  ", "\t", "\n", "E", "EOF",
    ")", "]", "}", "cat ", ";", "|", "&&", "\\", "x",
];

/// Openers and their closers that compose into valid bash at any depth.
const NESTS: &[(&str, &str)] = &[
    ("( ", " )"),
    ("{ ", "; }"),
    ("if a; then ", "; fi"),
    ("while a; do ", "; done"),
    ("echo \"$(", ")\""),
    ("f() { ", "; }"),
    ("case x in a) ", ";; esac"),
    ("cat <(", ")"),
    ("coproc { ", "; }"),
    ("! { ", "; }"),
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// brush-parser recurses per level and a stack overflow aborts the process: random
    /// nesting of every construct, far past the limit, with a test expression nested
    /// inside, must end in a result or an error on a 2 MiB thread, never in an abort
    /// (which would end this whole test binary).
    #[test]
    fn deep_nesting_never_overflows(
        levels in prop::collection::vec(0..NESTS.len(), 0..300),
        nots in 0usize..1500,
        ands in 0usize..1500,
    ) {
        let mut cmd = String::new();
        for &l in &levels {
            cmd.push_str(NESTS[l].0);
        }
        cmd.push_str(&format!("[[ {}a {}]]", "! ".repeat(nots), "&& a ".repeat(ands)));
        for &l in levels.iter().rev() {
            cmd.push_str(NESTS[l].1);
        }
        let handle = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || bash(&rules(), &cmd).action)
            .expect("spawn");
        prop_assert!(handle.join().is_ok());
    }
}
