//! The verdict's sentence and rule indices, and how bash parts combine.

use std::path::Path;

use paddock_rules::{Action, Rules};
use serde_json::json;

use crate::common::{WORKSPACE, bash, bash_rules, spec};

fn rules() -> Rules {
    bash_rules(&[
        (Action::Allow, "git status"),
        (Action::Allow, "git diff *"),
        (Action::Ask, "npm run *"),
        (Action::Deny, "rm -rf *"),
        (Action::Allow, "cat *"),
        (Action::Allow, "echo *"),
    ])
}

#[test]
fn the_four_sentences() {
    let r = rules();
    let v = bash(&r, "git diff --stat");
    assert_eq!(
        (v.action, v.why.as_str()),
        (
            Some(Action::Allow),
            "allowed by rules.bash[1] \"git diff *\""
        )
    );
    assert_eq!(v.matched, vec![1]);

    let v = bash(&r, "echo $(cat x)");
    assert_eq!(v.action, Some(Action::Ask));
    assert_eq!(
        v.why,
        "asks: command substitution $(…) in \"echo $(cat x)\""
    );

    let v = bash(&r, "rm x");
    assert_eq!(v.action, None);
    assert_eq!(
        v.why,
        "no rule matches \"rm x\" (falls back to the tool's grant)"
    );

    let v = bash(&r, "rm -rf build");
    assert_eq!(v.action, Some(Action::Deny));
    assert_eq!(
        v.why,
        "denied by rules.bash[3] \"rm -rf *\" for \"rm -rf build\""
    );
    assert_eq!(v.matched, vec![3]);
}

#[test]
fn several_parts_name_several_rules() {
    let r = rules();
    let v = bash(&r, "git status && git diff && cat x");
    assert_eq!(v.action, Some(Action::Allow));
    assert_eq!(
        v.why,
        "allowed by rules.bash[0] \"git status\", rules.bash[1] \"git diff *\" and rules.bash[4] \"cat *\""
    );
    assert_eq!(v.matched, vec![0, 1, 4]);
    let v = bash(&r, "git status && git diff");
    assert_eq!(
        v.why,
        "allowed by rules.bash[0] \"git status\" and rules.bash[1] \"git diff *\""
    );

    let v = bash(&r, "git status; rm a; mv b c; cp d e; ln f g");
    assert_eq!(v.action, None);
    assert_eq!(
        v.why,
        "no rule matches \"rm a\", \"mv b c\", \"cp d e\" and 1 more (falls back to the tool's grant)"
    );
    assert_eq!(v.matched, vec![0]);
}

#[test]
fn ask_rule_and_maybe_deny_sentences() {
    let r = rules();
    let v = bash(&r, "npm run build");
    assert_eq!(
        v.why,
        "asks: rules.bash[2] \"npm run *\" matches \"npm run build\""
    );
    assert_eq!(v.matched, vec![2]);
    let v = bash(&r, "rm $flags x");
    assert_eq!(v.action, Some(Action::Ask));
    assert_eq!(
        v.why,
        "asks: rules.bash[3] \"rm -rf *\" may deny \"rm $flags x\" (some of its words are only known when it runs)"
    );
}

#[test]
fn deny_outranks_every_ask() {
    let r = rules();
    // A forced Ask (substitution) and an ask rule lose to a deny anywhere in the command.
    let v = bash(&r, "echo $(id) && npm run x && rm -rf /");
    assert_eq!(v.action, Some(Action::Deny));
}

#[test]
fn unparseable_commands_ask_unless_a_rule_denies_everything() {
    let r = rules();
    let v = bash(&r, "echo 'open");
    assert_eq!(v.action, Some(Action::Ask));
    assert!(
        v.why
            .starts_with("asks: the command does not parse as bash"),
        "{}",
        v.why
    );

    let deny_all = bash_rules(&[(Action::Allow, "ls *"), (Action::Deny, "*")]);
    let v = bash(&deny_all, "echo 'open");
    assert_eq!(v.action, Some(Action::Deny));
    assert_eq!(v.why, "denied by rules.bash[1] \"*\" for any command");
    assert_eq!(bash(&deny_all, "ls").action, Some(Action::Deny));
}

#[test]
fn no_rules_or_no_command() {
    let empty = Rules::compile(&[]).expect("ok");
    assert_eq!(bash(&empty, "ls").action, None);
    let r = rules();
    let v = r.decide("bash", &json!({"cmd": "ls"}), Path::new(WORKSPACE));
    assert_eq!(v.action, None);
    assert!(v.why.contains("no command"));
    let v = r.decide("file_write", &json!({"path": "x"}), Path::new(WORKSPACE));
    assert_eq!(
        v.why,
        "no rule names file_write (falls back to the tool's grant)"
    );
}

#[test]
fn indices_are_global_and_keys_are_named() {
    let specs = [
        spec("file_write", Action::Allow, "src/**"),
        spec("bash", Action::Allow, "ls *"),
        spec("mcp__github__*", Action::Allow, "*"),
        spec("file_write", Action::Deny, "**/.env*"),
    ];
    let r = Rules::compile(&specs).expect("ok");
    let ws = Path::new(WORKSPACE);
    let v = r.decide("file_write", &json!({"path": "src/.env"}), ws);
    assert_eq!(v.action, Some(Action::Deny));
    assert_eq!(
        v.why,
        "denied by rules.file_write[1] \"**/.env*\" for \"src/.env\""
    );
    assert_eq!(v.matched, vec![3]);
    let v = r.decide("mcp__github__search", &json!({}), ws);
    assert_eq!(v.why, "allowed by rules.mcp__github__*[0] \"*\"");
    assert_eq!(v.matched, vec![2]);
    assert_eq!(bash(&r, "ls -la").matched, vec![1]);
}

#[test]
fn star_keys_cover_bash_and_file_tools() {
    let r = Rules::compile(&[
        spec("*", Action::Ask, "*"),
        spec("bash", Action::Allow, "ls"),
    ])
    .expect("ok");
    assert_eq!(bash(&r, "ls").action, Some(Action::Ask));
    let ws = Path::new(WORKSPACE);
    assert_eq!(
        r.decide("file_read", &json!({"path": "a"}), ws).action,
        Some(Action::Ask)
    );
    // An allow for any call still never allows a path out of the workspace.
    let r = Rules::compile(&[spec("file_*", Action::Allow, "*")]).expect("ok");
    assert_eq!(
        r.decide("file_read", &json!({"path": "a"}), ws).action,
        Some(Action::Allow)
    );
    assert_eq!(
        r.decide("file_read", &json!({"path": "../a"}), ws).action,
        None
    );
    // And an allow for any bash call still asks on what hides a command.
    let r = Rules::compile(&[spec("bash", Action::Allow, "*")]).expect("ok");
    assert_eq!(bash(&r, "ls && rm x").action, Some(Action::Allow));
    assert_eq!(bash(&r, "echo $(id)").action, Some(Action::Ask));
}

#[test]
fn wrappers_need_no_rule_but_sudo_does() {
    let r = bash_rules(&[
        (Action::Allow, "cargo test *"),
        (Action::Allow, "ls *"),
        (Action::Deny, "timeout *"),
    ]);
    assert_eq!(bash(&r, "nohup cargo test").action, Some(Action::Allow));
    // A deny on the wrapper's own words applies.
    assert_eq!(bash(&r, "timeout 5 cargo test").action, Some(Action::Deny));
    assert_eq!(bash(&r, "sudo ls").action, None);
    let r = bash_rules(&[(Action::Allow, "ls *"), (Action::Allow, "sudo *")]);
    assert_eq!(bash(&r, "sudo ls").action, Some(Action::Allow));
    assert_eq!(bash(&r, "sudo rm x").action, None);
}

#[test]
fn why_is_one_printable_line() {
    let r = rules();
    let long = format!("rm {}\n{}", "a".repeat(300), "b");
    let v = bash(&r, &long);
    assert!(!v.why.contains('\n'));
    assert!(v.why.chars().count() < 200, "{}", v.why);
    let v = bash(&r, "git status\r");
    assert!(!v.why.chars().any(char::is_control), "{:?}", v.why);
}

#[test]
fn rules_and_results_cross_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<Rules>();
    shared::<paddock_rules::Verdict>();
    shared::<paddock_rules::Parsed>();
    shared::<paddock_rules::RuleError>();
}

/// Rules whose command name is a glob are looked up by the plain start of the name (or of
/// the path): every command that starts so is checked, every other is skipped.
#[test]
fn name_globs_are_found_by_their_plain_start() {
    let r = bash_rules(&[
        (Action::Allow, "lint* --fix *"),
        (Action::Allow, "lint-js *"),
        (Action::Deny, "l?q *"),
        (Action::Allow, "/opt/tools/fmt* *"),
        (Action::Allow, "*-check"),
        (Action::Allow, "lintian"),
    ]);
    let action = |cmd: &str| bash(&r, cmd).action;
    assert_eq!(action("lint --fix src"), Some(Action::Allow));
    assert_eq!(action("lint-js a"), Some(Action::Allow));
    assert_eq!(action("linter --fix a && lintian"), Some(Action::Allow));
    assert_eq!(action("li --fix a"), None);
    assert_eq!(action("lxq x"), Some(Action::Deny));
    assert_eq!(action("/opt/tools/fmt-rs x"), Some(Action::Allow));
    assert_eq!(action("/opt/tool/fmt-rs x"), None);
    assert_eq!(action("type-check"), Some(Action::Allow));
    assert_eq!(action("/usr/bin/lint --fix x"), Some(Action::Allow));
    assert_eq!(action("$L --fix x"), Some(Action::Ask));
}

/// Issue 50: `git rebase *` allows rebasing, not the command given to `-x`; a rule that
/// names `-x` itself says the user meant it.
#[test]
fn a_git_argument_that_runs_a_program_asks_unless_a_rule_names_it() {
    let broad = bash_rules(&[(Action::Allow, "git rebase *"), (Action::Allow, "git *")]);
    for cmd in [
        "git rebase -x make main",
        "git -c core.hooksPath=h commit -m x",
        "/usr/bin/git fetch --upload-pack=./evil origin",
        "git submodule foreach make",
    ] {
        let v = bash(&broad, cmd);
        assert_eq!(v.action, Some(Action::Ask), "{cmd}: {}", v.why);
    }
    assert_eq!(
        bash(&broad, "git rebase -i main").action,
        Some(Action::Allow)
    );
    let named = bash_rules(&[(Action::Allow, "git rebase -x *")]);
    let v = bash(&named, "git rebase -x make main");
    assert_eq!(v.action, Some(Action::Allow), "{}", v.why);
}

/// Behind Landlock alone git by its path runs past Paddock's git front, so a rule that
/// allows `git status` no longer lets `/usr/bin/git status` run unattended; git by its name
/// (found on `PATH`: the front) still runs, and so does everything where the front covers
/// paths. Fails without the check: the path form was allowed like the name.
#[test]
fn git_by_its_path_asks_where_the_front_cannot_cover_it() {
    let fronted = rules();
    let unfronted = rules().with_git_paths_unfronted(true);
    for cmd in [
        "/usr/bin/git status",
        "git status && /bin/git diff",
        "env /usr/local/bin/git status",
        "timeout 5 /usr/bin/git status",
    ] {
        assert_eq!(bash(&fronted, cmd).action, Some(Action::Allow), "{cmd}");
        let v = bash(&unfronted, cmd);
        assert_eq!(v.action, Some(Action::Ask), "{cmd}");
        assert!(v.why.contains("git named by its path"), "{}", v.why);
    }
    assert_eq!(bash(&unfronted, "git status").action, Some(Action::Allow));
    // No rule allows it: the tool's grant decides, as before.
    assert_eq!(bash(&unfronted, "/usr/bin/git log").action, None);
    // A deny still wins.
    assert_eq!(
        bash(&unfronted, "/usr/bin/git status; rm -rf x").action,
        Some(Action::Deny)
    );
}
