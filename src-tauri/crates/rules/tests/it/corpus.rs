//! Runs the rule corpus (`corpus.toml`): every case against the fixed rule set, each with
//! the bypass or over-block a naive prefix matcher would get wrong.

use std::path::Path;

use paddock_rules::{Action, Rules, specs_from_json};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::common::WORKSPACE;

const MIN_CASES: usize = 150;

#[derive(Deserialize)]
struct Corpus {
    rules: toml::Value,
    case: Vec<Case>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    cmd: Option<String>,
    repeat: Option<usize>,
    tail: Option<String>,
    tool: Option<String>,
    path: Option<String>,
    input: Option<String>,
    expect: String,
    why: Option<String>,
    prefix_matcher: String,
}

impl Case {
    fn call(&self) -> (String, Value) {
        if let Some(cmd) = &self.cmd {
            let mut full = cmd.repeat(self.repeat.unwrap_or(1));
            full.push_str(self.tail.as_deref().unwrap_or(""));
            return ("bash".to_owned(), json!({ "command": full }));
        }
        let tool = self.tool.clone().expect("a case has cmd or tool");
        let input = match (&self.path, &self.input) {
            (Some(p), None) => json!({ "path": p }),
            (None, Some(text)) => serde_json::from_str(text).expect("input is JSON"),
            _ => panic!("case for {tool} needs exactly one of path and input"),
        };
        (tool, input)
    }

    fn label(&self) -> String {
        match (&self.cmd, &self.tool) {
            (Some(c), _) => format!("{:?}", c.chars().take(80).collect::<String>()),
            (None, Some(t)) => format!("{t} {:?}{:?}", self.path, self.input),
            _ => "?".to_owned(),
        }
    }
}

fn load() -> (Rules, Vec<Case>) {
    let text = include_str!("corpus.toml");
    let corpus: Corpus = toml::from_str(text).expect("corpus.toml parses");
    let rules_json = serde_json::to_value(&corpus.rules).expect("rules as JSON");
    let specs = specs_from_json(&rules_json).expect("corpus rules are valid");
    (
        Rules::compile(&specs).expect("corpus rules compile"),
        corpus.case,
    )
}

fn expected(word: &str) -> Option<Action> {
    match word {
        "allow" => Some(Action::Allow),
        "ask" => Some(Action::Ask),
        "deny" => Some(Action::Deny),
        "none" => None,
        other => panic!("unknown expectation {other:?}"),
    }
}

#[test]
fn every_case_gets_its_expected_decision() {
    let (rules, cases) = load();
    assert!(
        cases.len() >= MIN_CASES,
        "the corpus has {} cases, fewer than {MIN_CASES}",
        cases.len()
    );
    let mut failures = Vec::new();
    for case in &cases {
        assert!(
            case.prefix_matcher.trim().len() >= 5,
            "case {} needs a prefix_matcher note",
            case.label()
        );
        let (tool, input) = case.call();
        let verdict = rules.decide(&tool, &input, Path::new(WORKSPACE));
        let want = expected(&case.expect);
        let why_ok = case
            .why
            .as_ref()
            .is_none_or(|w| verdict.why.contains(w.as_str()));
        if verdict.action != want || !why_ok {
            failures.push(format!(
                "{}: expected {:?}{}, got {:?}: {}",
                case.label(),
                want,
                case.why
                    .as_ref()
                    .map(|w| format!(" with {w:?}"))
                    .unwrap_or_default(),
                verdict.action,
                verdict.why
            ));
        }
        // A decision always says why, and names rules that exist.
        assert!(!verdict.why.is_empty());
        assert!(verdict.matched.iter().all(|&i| i < rules.len()));
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn corpus_commands_are_distinct() {
    let (_, cases) = load();
    let mut seen = std::collections::HashSet::new();
    for case in &cases {
        let (tool, input) = case.call();
        assert!(
            seen.insert((tool, input.to_string())),
            "duplicate case {}",
            case.label()
        );
    }
}

#[test]
fn corpus_covers_every_decision() {
    let (_, cases) = load();
    for word in ["allow", "ask", "deny", "none"] {
        let n = cases.iter().filter(|c| c.expect == word).count();
        assert!(n >= 10, "only {n} cases expect {word}");
    }
}
