//! Argument rules from the settings: checked like the file, shared by the project's
//! runtimes (a rule saved mid-run applies at the next call), explained without running.

use paddock_core::{Gate, RuleBook};
use paddock_host::explain::{explain, input_for};
use paddock_host::rules::add_allow_rules;
use paddock_host::{Project, ProjectTools, Resolved, RunLimits, settings};
use paddock_protocol::{Grant, ProjectSettings, RuleEntry, ToolPreset};
use serde_json::json;

fn project(settings: ProjectSettings) -> (tempfile::TempDir, Project) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".agent-workspace")).unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    (
        dir,
        Resolved::as_written(&root, settings).unwrap().project(),
    )
}

fn bash_asks() -> ProjectSettings {
    let mut s = ProjectSettings {
        preset: Some(ToolPreset::Readonly),
        ..ProjectSettings::default()
    };
    s.tools.insert("bash".into(), Grant::Ask);
    s
}

fn write(dir: &std::path::Path, text: &str) {
    let path = settings::settings_path(dir);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn bad_rules_are_named_as_the_file_names_them() {
    let dir = tempfile::tempdir().unwrap();
    for (text, field, words) in [
        (
            r#"{"version":1,"rules":{"bash":[{"allow":"git status"},{"allow":""}]}}"#,
            "`rules.bash[1]`",
            "empty",
        ),
        (
            r#"{"version":1,"rules":{"mcp__gh__*":[{"allow":"issues"}]}}"#,
            "`rules.mcp__gh__*[0]`",
            "only for bash and the file tools",
        ),
        (
            r#"{"version":1,"rules":{"bash":[{"allow":"x","deny":"y"}]}}"#,
            "`rules.bash[0]`",
            "",
        ),
        (
            r#"{"version":1,"rules":{"bash":[{"sometimes":"x"}]}}"#,
            "`rules.bash[0]`",
            "unknown variant",
        ),
    ] {
        write(dir.path(), text);
        let err = settings::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains(field), "{text}: {err}");
        assert!(err.contains(words), "{text}: {err}");
    }
    write(
        dir.path(),
        r#"{"version":1,"rules":{"bash":[{"allow":"git diff *"},{"deny":"rm -rf *"}],"file_write":[{"allow":"src/**"}]}}"#,
    );
    let s = settings::load(dir.path()).unwrap();
    assert_eq!(
        s.rules["bash"],
        [
            RuleEntry::Allow("git diff *".into()),
            RuleEntry::Deny("rm -rf *".into())
        ]
    );
}

#[test]
fn rules_refine_the_tools_grant_call_by_call() {
    let mut s = bash_asks();
    s.rules.insert(
        "bash".into(),
        vec![
            RuleEntry::Allow("git status".into()),
            RuleEntry::Deny("rm -rf *".into()),
        ],
    );
    let (_d, p) = project(s);
    let limits = RunLimits::interactive();
    let check =
        |cmd: &str| explain(&p, &limits, "bash", &json!({ "command": cmd }), no_hooks()).unwrap();
    let e = check("'git' status");
    assert_eq!((e.decision, e.by_rule), (Grant::Allow, true), "{e:?}");
    assert!(e.why.contains("rules.bash[0]"), "{}", e.why);
    let e = check("git status && rm -rf build");
    assert_eq!(e.decision, Grant::Deny, "{e:?}");
    assert!(e.why.contains("rules.bash[1]"), "{}", e.why);
    let e = check("git status && touch x");
    assert_eq!((e.decision, e.by_rule), (Grant::Ask, false), "{e:?}");
    assert!(e.why.contains("touch x"), "{}", e.why);
    assert_eq!(e.proposed_rules, ["git status", "touch x"]);
    let e = check("echo $(cat ~/.ssh/id_rsa)");
    assert_eq!((e.decision, e.by_rule), (Grant::Ask, true), "{e:?}");
    assert!(
        e.proposed_rules.is_empty(),
        "no rule can allow a substitution"
    );
}

#[test]
fn a_rule_saved_during_a_run_applies_at_its_next_call() {
    let (_d, p) = project(bash_asks());
    let book = RuleBook::default();
    let tools = ProjectTools::sharing_rules(
        &p,
        Vec::new(),
        None,
        Vec::new(),
        &RunLimits::interactive(),
        &book,
    )
    .unwrap();
    // What a running agent holds: resolved once at the start of its run.
    let running = tools.resolved();
    let call = json!({"command": "cargo test --workspace"});
    assert_eq!(running.check_call("bash", &call).gate, Gate::Ask);
    let proposed = running.propose("bash", &call).unwrap();
    assert_eq!(proposed, ["cargo test --workspace"]);

    let mut s = p.settings().clone();
    add_allow_rules(&mut s, "bash", &proposed).unwrap();
    add_allow_rules(&mut s, "bash", &proposed).unwrap();
    assert_eq!(s.rules["bash"].len(), 1, "saved once");
    let updated = Resolved::as_written(p.root(), s).unwrap().project();
    paddock_host::rules::load_into(&book, &updated).unwrap();
    let d = running.check_call("bash", &call);
    assert_eq!(d.gate, Gate::Allow, "{d:?}");
    assert!(d.why.contains("cargo test --workspace"), "{}", d.why);
    assert_eq!(
        running
            .check_call("bash", &json!({"command": "cargo test --workspace; rm x"}))
            .gate,
        Gate::Ask,
        "a chained part the rule does not cover still asks"
    );
}

#[test]
fn saving_a_rule_is_checked_like_the_file() {
    let mut s = ProjectSettings::default();
    let err = add_allow_rules(&mut s, "bash", &[]).unwrap_err();
    assert_eq!(err.field, "rules.bash");
    let err = add_allow_rules(&mut s, "mcp__gh__x", &["not a star".into()]).unwrap_err();
    assert_eq!(err.field, "rules.mcp__gh__x[0]");
}

#[test]
fn file_rules_are_paths_in_the_workspace() {
    let mut s = ProjectSettings::default();
    s.tools.insert("file_write".into(), Grant::Ask);
    s.rules.insert(
        "file_write".into(),
        vec![
            RuleEntry::Allow("src/**".into()),
            RuleEntry::Deny("**/.env*".into()),
        ],
    );
    let (_d, p) = project(s);
    let limits = RunLimits::interactive();
    let check = |path: &str| {
        explain(
            &p,
            &limits,
            "file_write",
            &input_for("file_write", path).unwrap(),
            no_hooks(),
        )
        .unwrap()
        .decision
    };
    assert_eq!(check("src/a/b.rs"), Grant::Allow);
    assert_eq!(check("./src/../src/x.rs"), Grant::Allow);
    assert_eq!(check("src/.env.local"), Grant::Deny);
    assert_eq!(
        check("../src/x.rs"),
        Grant::Ask,
        "outside: the grant decides"
    );
    assert_eq!(check("README.md"), Grant::Ask);
}

#[test]
fn typed_calls_become_inputs() {
    assert_eq!(
        input_for("bash", "ls -la").unwrap(),
        json!({"command": "ls -la"})
    );
    assert_eq!(
        input_for("mcp__gh__issues", r#"{"repo": "x"}"#).unwrap(),
        json!({"repo": "x"})
    );
    assert!(input_for("mcp__gh__issues", "{nope").is_err());
}

/// A config folder with no `hooks.json`: the user has no hooks.
fn no_hooks() -> &'static std::path::Path {
    std::path::Path::new("/nonexistent/paddock-config")
}
