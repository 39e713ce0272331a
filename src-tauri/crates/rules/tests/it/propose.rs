//! "Always allow" proposals: the narrowest rules that allow the call, and nothing when no
//! rule can.

use std::path::Path;

use paddock_rules::{Action, RuleSpec, Rules, propose};
use serde_json::{Value, json};

use crate::common::{WORKSPACE, spec};

fn bash_proposal(cmd: &str) -> Option<Vec<String>> {
    propose("bash", &json!({ "command": cmd }), Path::new(WORKSPACE))
}

/// Proposals compiled as allow rules allow the call they were made for.
fn allows(tool: &str, input: &Value, patterns: &[String]) -> bool {
    let specs: Vec<RuleSpec> = patterns
        .iter()
        .map(|p| spec(tool, Action::Allow, p))
        .collect();
    let rules = Rules::compile(&specs).expect("proposals compile");
    rules.decide(tool, input, Path::new(WORKSPACE)).action == Some(Action::Allow)
}

#[test]
fn one_exact_pattern_per_simple_command() {
    assert_eq!(
        bash_proposal("git status && cargo test -p core | grep ok"),
        Some(vec![
            "git status".to_owned(),
            "cargo test -p core".to_owned(),
            "grep ok".to_owned()
        ])
    );
    assert_eq!(bash_proposal("ls; ls"), Some(vec!["ls".to_owned()]));
    assert_eq!(
        bash_proposal("git commit -m \"fix: it's *done*\""),
        Some(vec!["git commit -m \"fix: it's *done*\"".to_owned()])
    );
    assert_eq!(
        bash_proposal("echo 'a b' '*'"),
        Some(vec!["echo 'a b' '*'".to_owned()])
    );
}

#[test]
fn wrappers_propose_what_needs_a_rule() {
    assert_eq!(
        bash_proposal("timeout 5 cargo test"),
        Some(vec!["cargo test".to_owned()])
    );
    assert_eq!(
        bash_proposal("sudo ls"),
        Some(vec!["sudo ls".to_owned(), "ls".to_owned()])
    );
    assert_eq!(
        bash_proposal("sh -c 'ls -la'"),
        Some(vec!["ls -la".to_owned()])
    );
    let find = "find . -name '*.o' -exec rm {} +";
    assert_eq!(
        bash_proposal(find),
        Some(vec!["find . -name '*.o' -exec rm '{}' +".to_owned()])
    );
}

#[test]
fn nothing_when_no_rule_can_allow() {
    for cmd in [
        "echo $(id)",
        "rm $x",
        "ls *.rs",
        "PATH=/x ls",
        "ls > /etc/x",
        "eval ls",
        "ls 'open",
        "x=1",
        "",
        "$CMD",
    ] {
        assert_eq!(bash_proposal(cmd), None, "{cmd:?}");
    }
    assert_eq!(propose("bash", &json!({}), Path::new(WORKSPACE)), None);
}

#[test]
fn proposals_allow_their_call() {
    for cmd in [
        "git status && cargo test -p core | grep ok",
        "git commit -m \"fix: it's *done*\" && git log -1",
        "timeout 5 cargo test",
        "sudo ls",
        "/usr/bin/git status",
        "./scripts/x.sh --flag",
        "find . -name '*.o' -exec rm {} +",
        "nohup make >/dev/null 2>&1 &",
        "echo '' \"\" '[' '{a,b}' '~' '#x'",
    ] {
        let input = json!({ "command": cmd });
        let patterns = bash_proposal(cmd).unwrap_or_else(|| panic!("a proposal for {cmd:?}"));
        assert!(
            allows("bash", &input, &patterns),
            "{cmd:?} with {patterns:?}"
        );
    }
}

#[test]
fn file_tools_propose_the_exact_path() {
    let ws = Path::new(WORKSPACE);
    let input = json!({ "path": "./src/../src/a[1].rs" });
    let p = propose("file_write", &input, ws).expect("inside");
    assert_eq!(p, vec!["src/a\\[1\\].rs".to_owned()]);
    assert!(allows("file_write", &input, &p));
    // The exact pattern does not cover a sibling that its glob characters would.
    assert!(!allows("file_write", &json!({ "path": "src/a1.rs" }), &p));
    assert_eq!(propose("file_write", &json!({ "path": "../x" }), ws), None);
    assert_eq!(
        propose("file_write", &json!({ "path": "/etc/passwd" }), ws),
        None
    );
    assert_eq!(propose("file_read", &json!({}), ws), None);
    let grep = json!({ "pattern": "x" });
    let p = propose("grep", &grep, ws).expect("root");
    assert_eq!(p, vec![".".to_owned()]);
    assert!(allows("grep", &grep, &p));
}

#[test]
fn other_tools_propose_any_call() {
    let ws = Path::new(WORKSPACE);
    let input = json!({ "repo": "x" });
    let p = propose("mcp__github__create_issue", &input, ws).expect("any");
    assert_eq!(p, vec!["*".to_owned()]);
    assert!(allows("mcp__github__create_issue", &input, &p));
}
