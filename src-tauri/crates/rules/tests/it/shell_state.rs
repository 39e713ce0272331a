//! Rules must not allow what bash will not run as read (issue class 5): an allow rule such as
//! `ls *` matched every word of these commands while bash ran something else, because an
//! earlier part assigned a variable bash itself reads, set an option that changes how later
//! commands read or run, or started a shell that runs startup files first. Every spelling must
//! ask (or be denied), never be allowed.
//!
//! How each row was shown able to fail: the tables ran against the crate as it was before the
//! fix (its `src/` from git HEAD, built with these tests). `// was Allow` marks a row that got
//! Allow there; `// was Ask` a row that already asked (some for another reason) and is kept
//! as a guard.

use paddock_rules::shell::{SHELL_VARS, is_dangerous_env};
use paddock_rules::{Action, Rules, parse_command};

use crate::common::{bash, bash_rules};

/// Allow rules for `ls` and for every builtin and shell the attacks go through, so only the
/// hidden change can make them ask.
fn rules() -> Rules {
    let allowed = [
        "ls *",
        "bash *",
        "sh *",
        "dash *",
        "echo *",
        "cat *",
        "printf *",
        "read *",
        "export *",
        "declare *",
        "typeset *",
        "local *",
        "readonly *",
        "unset *",
        "mapfile *",
        "readarray *",
        "getopts *",
        "wait *",
        "set *",
        "shopt *",
        "unalias *",
        "env *",
        "timeout *",
        "cd *",
        "true",
        "sort *",
        "make *",
        "git status",
        "cargo test *",
        "npm run *",
    ];
    let mut specs: Vec<(Action, &str)> = allowed.iter().map(|p| (Action::Allow, *p)).collect();
    specs.push((Action::Deny, "cat .env"));
    specs.push((Action::Deny, "rm -rf *"));
    bash_rules(&specs)
}

/// Asserts every command asks, and that its `why` says the given words.
fn all_ask(cases: &[(&str, &str)]) {
    let r = rules();
    let mut wrong = Vec::new();
    for (cmd, why) in cases {
        let v = bash(&r, cmd);
        if v.action != Some(Action::Ask) || !v.why.contains(why) {
            wrong.push(format!("{cmd:?}: {:?}: {}", v.action, v.why));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn assignments_to_variables_bash_reads_ask() {
    all_ask(&[
        // Statements and array assignments.
        ("BASH_CMDS[ls]=/tmp/evil; ls", "assigns BASH_CMDS"), // was Ask (arithmetic)
        (
            "BASH_CMDS=([ls]=/bin/sh); ls",
            "assigns BASH_CMDS, which changes what a later command name runs",
        ), // was Allow
        ("BASH_CMDS+=([ls]=/bin/sh); ls", "assigns BASH_CMDS"), // was Allow
        (
            "BASH_ALIASES=([ls]=id); ls",
            "assigns BASH_ALIASES, which defines aliases",
        ), // was Allow
        ("BASH_ALIASES[ls]='rm -rf ~'; ls", "assigns BASH_ALIASES"), // was Ask (arithmetic)
        ("POSIXLY_CORRECT=1; ls", "assigns POSIXLY_CORRECT"), // was Allow
        ("BASH_XTRACEFD=3; set -x; ls", "assigns BASH_XTRACEFD"), // was Allow
        ("PS1='$(id)'; ls", "assigns PS1"),                   // was Allow
        ("PS0='$(id)' bash -i", "assigns PS0"),               // was Allow
        ("EXECIGNORE=/usr/bin/ls; ls", "assigns EXECIGNORE"), // was Allow
        ("FUNCNEST=1; ls", "assigns FUNCNEST"),               // was Allow
        ("BASH_LOADABLES_PATH=.; ls", "assigns BASH_LOADABLES_PATH"), // was Allow
        ("HISTFILE=./x; ls", "assigns HISTFILE"),             // was Allow
        ("INPUTRC=./x; ls", "assigns INPUTRC"),               // was Allow
        ("BASH_COMPAT=31; ls", "assigns BASH_COMPAT"),        // was Allow
        ("BASH_ARGV0=x; ls", "one of bash's own variables"),  // was Allow
        ("MAILPATH='./x?$(id)'; ls", "assigns MAILPATH"),     // was Allow
        ("OLDPWD=/etc; ls", "assigns OLDPWD"),                // was Allow
        ("LC_ALL=zh_CN.GBK bash -c ls", "assigns LC_ALL"),    // was Allow
        ("LANG=$L ls", "assigns LANG"),                       // was Allow
        ("GLIBC_TUNABLES=x ls", "setting GLIBC_TUNABLES"),    // was Allow
        // Builtins, however the name is attached.
        (
            "declare -A BASH_CMDS=([ls]=/bin/sh); ls",
            "assigns BASH_CMDS",
        ), // was Allow
        (
            "typeset -A BASH_ALIASES=([ls]=id); ls",
            "assigns BASH_ALIASES",
        ), // was Allow
        ("declare BASH_CMDS[ls]=/tmp/evil; ls", "assigns BASH_CMDS"), // was Allow
        ("export BASH_ENV=\"$PWD/x\"; bash -c ls", "assigns BASH_ENV"), // was Allow
        ("export PATH=\"/tmp/evil:$PATH\" && ls", "assigns PATH"),    // was Allow
        ("declare -x PATH=/tmp/evil:$PATH; ls", "assigns PATH"),      // was Allow
        ("export PATH+=:.; ls", "assigns PATH"),                      // was Allow
        ("declare PATH+=:.; ls", "assigns PATH"),                     // was Allow
        (
            "export POSIXLY_CORRECT=1; bash -c ls",
            "assigns POSIXLY_CORRECT",
        ), // was Allow
        ("printf -vPATH %s /tmp/evil; ls", "assigns PATH"),           // was Allow
        ("read -aPATH <<< /tmp/evil; ls", "assigns PATH"),            // was Allow
        ("read -ra BASH_CMDS <<< /tmp/evil; ls", "assigns BASH_CMDS"), // was Allow
        ("mapfile -t BASH_ALIASES < f; ls", "assigns BASH_ALIASES"),  // was Allow
        ("wait -pPATH; ls", "assigns PATH"),                          // was Allow
        ("unset PATH; ls", "assigns PATH"), // was Allow (bash then looks in ./)
        ("unset -v PATH; ls", "assigns PATH"), // was Allow
        ("env -u PATH bash -c ls", "assigns PATH"), // was Allow
        (
            "env -i bash -c 'cargo test'",
            "`env -i` empties the environment",
        ), // was Allow
        ("f() { local PATH=/tmp/evil; ls; }; f", "assigns PATH"), // was Ask
        ("readarray PATH < f; ls", "assigns PATH"), // was Ask
        ("getopts a PATH; ls", "assigns PATH"), // was Ask
        // Assignments hidden in words and redirections.
        ("echo {BASH_CMDS[ls]}>/dev/null; ls", "assigns BASH_CMDS"), // was Allow
        ("echo {PATH}>/dev/null; ls", "assigns PATH"),               // was Allow
        ("{PATH}>/dev/null", "assigns PATH"),                        // was None (no rule)
        ("echo ${BASH_ENV:=./x} && bash -c ls", "assigns BASH_ENV"), // was Allow
        ("echo \"${PATH:=/tmp}\" && ls", "assigns PATH"),            // was Allow
        ("coproc PATH { ls; }", "assigns PATH"),                     // was Allow
        (
            "bash -c 'BASH_CMDS=([ls]=/bin/sh); ls'",
            "assigns BASH_CMDS",
        ), // was Allow
    ]);
}

#[test]
fn names_only_known_when_it_runs_ask() {
    all_ask(&[
        (
            "x=PATH; export \"$x=/tmp/evil\"; ls",
            "a variable named only when it runs",
        ), // was Allow
        (
            "export $x=/tmp/evil; ls",
            "a variable named only when it runs",
        ), // was Allow
        (
            "printf -v \"$v\" %s /tmp/evil; ls",
            "a variable named only when it runs",
        ), // was Allow
        (
            "f=-vPATH; printf \"$f\" /tmp/evil; ls",
            "a variable named only when it runs",
        ), // was Allow
        (
            "read -r \"$v\" <<< /tmp/evil; ls",
            "a variable named only when it runs",
        ), // was Allow
        (
            "declare -n r=PATH; r=/tmp/evil; ls",
            "`declare -n` makes a name",
        ), // was Allow
        (
            "declare -n r; for r in PATH; do r=/tmp/evil; done; ls",
            "`declare -n`",
        ), // was Allow
        ("set \"$x\"; ls", "an option this matcher does not know"), // was Allow
        (
            "shopt -s \"$o\"; ls",
            "an option this matcher does not know",
        ), // was Allow
    ]);
}

#[test]
fn options_that_change_how_bash_reads_ask() {
    all_ask(&[
        (
            "shopt -s expand_aliases; ls",
            "`shopt -s expand_aliases` turns alias expansion on",
        ), // was Allow
        ("shopt -s extdebug; ls", "`shopt -s extdebug`"), // was Allow
        ("shopt -s cdable_vars; cd HOME", "`shopt -s cdable_vars`"), // was Allow
        ("shopt -so posix; ls", "`shopt -so posix`"),     // was Allow
        ("shopt -s nocaseglob; cat .EN?", "`shopt -s nocaseglob`"), // was Allow (past `cat .env`)
        (
            "set -o posix; ls",
            "`set -o posix` turns POSIX mode on or off",
        ), // was Allow
        ("set -T; ls", "`set -T`"),                       // was Allow
        ("set -o functrace; ls", "`set -o functrace`"),   // was Allow
        ("set -k; bash -c ls BASH_ENV=./x", "`set -k`"),  // was Allow
        ("set -euk; ls", "`set -k`"),                     // was Allow
        ("set -H; ls", "`set -H`"),                       // was Allow
        ("set -o history; ls", "`set -o history`"),       // was Allow
        ("set -P; ls", "`set -P`"),                       // was Allow
        (
            "unalias ls; ls",
            "`unalias` changes what a later command name runs",
        ), // was Allow
        (
            "bash -c 'shopt -s expand_aliases\nls'",
            "`shopt -s expand_aliases`",
        ), // was Allow
        ("alias ls=id; ls", "`alias`"),                   // was Ask
        ("enable -f ./x.so ls; ls", "`enable`"),          // was Ask
        ("trap 'id' DEBUG; ls", "`trap`"),                // was Ask
    ]);
}

#[test]
fn shells_that_run_startup_files_or_read_differently_ask() {
    all_ask(&[
        ("bash --rcfile ./x -c 'ls'", "`bash --rcfile` names a file"), // was Allow
        ("bash --init-file ./x -ic 'ls'", "`bash --init-file`"),       // was Allow
        ("bash -i -c ls", "`bash -i` starts an interactive shell"),    // was Allow
        ("bash -ic ls", "`bash -i`"),                                  // was Allow
        ("sh -i -c ls", "`sh -i`"),                                    // was Allow
        ("dash -i -c ls", "`dash -i`"),                                // was Allow
        ("sh -i", "`sh -i`"),                                          // was Allow
        ("bash -l -c ls", "`bash -l` starts a login shell"),           // was Allow
        ("bash -lc ls", "`bash -l`"),                                  // was Allow
        ("bash --login -c ls", "`bash --login`"),                      // was Allow
        ("timeout 5 bash -l -c ls", "`bash -l`"),                      // was Allow
        ("env bash --login -c ls", "`bash --login`"),                  // was Allow
        ("bash -O expand_aliases -c ls", "`bash -O expand_aliases`"),  // was Allow
        ("bash -cO expand_aliases ls", "`bash -O expand_aliases`"),    // was None (string misread)
        ("bash -O extdebug -c ls", "`bash -O extdebug`"),              // was Allow
        ("bash --debugger -c ls", "`bash --debugger`"),                // was Allow
        ("bash -o posix -c ls", "`bash -o posix`"),                    // was Allow
        ("bash --posix -c ls", "`bash --posix`"),                      // was Allow
        ("bash -k -c ls", "`bash -k`"),                                // was Allow
        (
            "bash --frobnicate -c ls",
            "an option this matcher does not know",
        ), // was Allow
        ("exec -a -bash bash -c ls", "`exec`"),                        // was Ask
        ("ENV=./x sh -i", "assigns ENV"),                              // was Ask
    ]);
}

/// `bash -eo pipefail -c 'rm -rf x'`: the `o` in a cluster takes the next word, so the
/// string after `-c` is found and judged (it was read as a script named `pipefail` and the
/// string never judged: Allow under `bash *`).
#[test]
fn option_values_in_shell_flag_clusters_are_skipped() {
    let r = rules();
    assert_eq!(
        bash(&r, "bash -eo pipefail -c 'rm -rf x'").action,
        Some(Action::Deny)
    ); // was Allow
    assert_eq!(
        bash(&r, "bash -eo pipefail -c 'ls -la'").action,
        Some(Action::Allow)
    );
}

#[test]
fn deny_rules_still_win() {
    let r = rules();
    for cmd in [
        "BASH_CMDS=([ls]=/bin/sh); rm -rf x",
        "bash -lc 'rm -rf x'",
        "shopt -s expand_aliases; rm -rf x",
        // A function that shadows a command name is judged by its body where it is defined
        // (this was Deny before too).
        "ls() { rm -rf x; }; ls -la",
    ] {
        assert_eq!(bash(&r, cmd).action, Some(Action::Deny), "{cmd}");
    }
}

/// Every one of these was Allow before and stays Allow: variables bash does not read, plain
/// locales, options that only stop on errors or trace, and builtins that only read.
#[test]
fn ordinary_commands_stay_allowed() {
    let r = rules();
    let mut wrong = Vec::new();
    for cmd in [
        "ls -la",
        "FOO=1 make test",
        "RUST_LOG=debug cargo test",
        "git status",
        "cargo test -p x",
        "npm run build",
        "export FOO=bar && ls",
        "export FOO=\"$HOME/x\" && ls",
        "export FOO=$BAR && ls",
        "set -euo pipefail; ls",
        "set -Eeuo pipefail; ls",
        "set -x; ls",
        "set -- a b; ls",
        "shopt -s nullglob globstar; ls **/*.rs",
        "shopt -q extdebug; ls",
        "bash -c 'ls'",
        "bash -e -c 'ls'",
        "bash -xc ls",
        "bash -eo pipefail -c ls",
        "bash --norc --noprofile -c ls",
        "sh -c 'ls'",
        "while read -r line; do echo \"$line\"; done < f",
        "read -r -p \"Continue? \" ans",
        "printf -v out '%s' x; ls",
        "printf '%s\\n' \"$x\"",
        "declare -a arr=(1 2); ls",
        "LANG=C sort f",
        "LC_ALL=C ls",
        "LC_ALL=C.UTF-8 ls",
        "export LANG=en_US.UTF-8 && ls",
        "env LC_ALL=C ls",
        "unset FOO; ls",
        "unset -f ls; ls",
        "mapfile -t lines < f",
        "getopts ab opt",
        "export -p",
        "echo {PATH} >/dev/null",
        "echo ${HOME:-x}",
        // Was Ask (it names PATH), now allowed: `declare -p` only prints.
        "declare -p PATH",
    ] {
        let v = bash(&r, cmd);
        if v.action != Some(Action::Allow) {
            wrong.push(format!("{cmd:?}: {:?}: {}", v.action, v.why));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The class, not the examples: every variable bash reads asks in every way of assigning it.
/// Before the fix 865 of these 1,131 were Allow: every spelling for the 25 names that were
/// not listed then (BASH_CMDS, BASH_ALIASES, POSIXLY_CORRECT, PS1…), and for all 39 names
/// the spellings marked `all`.
#[test]
fn every_listed_variable_asks_in_every_spelling() {
    const SPELLINGS: &[&str] = &[
        "@V=x; ls",
        "@V=x ls",
        "@V=(x); ls",
        "@V+=x; ls",
        "@V[0]=x; ls",
        "export @V=x; ls",
        "export @V=\"$x\"; ls", // all
        "declare -x @V=x; ls",
        "declare -A @V=([k]=v); ls",
        "typeset @V=x; ls",
        "readonly @V=x; ls",
        "local @V=x; ls",
        "read -r @V < f; ls",
        "read -a@V < f; ls", // all
        "mapfile -t @V < f; ls",
        "printf -v @V x; ls",
        "printf -v@V x; ls", // all
        "getopts a @V; ls",
        "wait -p @V; ls",
        "wait -p@V; ls", // all
        "unset @V; ls",  // all
        "for @V in x; do ls; done",
        "env @V=x ls",
        "env -u @V ls", // all
        "timeout 5 env @V=x ls",
        "echo ${@V:=x}; ls",       // all
        "echo {@V}>/dev/null; ls", // all
        "coproc @V { ls; }",       // all
        "bash -c '@V=x; ls'",
    ];
    let r = rules();
    let names = SHELL_VARS.iter().map(|(n, _)| *n).chain([
        "BASH_ARGV0",
        "BASHPID",
        "LD_PRELOAD",
        "GLIBC_TUNABLES",
    ]);
    let mut wrong = Vec::new();
    let mut judged = 0;
    for name in names {
        assert!(is_dangerous_env(name), "{name}");
        for spelling in SPELLINGS {
            let cmd = spelling.replace("@V", name);
            judged += 1;
            let v = bash(&r, &cmd);
            if v.action != Some(Action::Ask) {
                wrong.push(format!("{cmd:?}: {:?}: {}", v.action, v.why));
            }
        }
    }
    assert!(judged > 1_000, "{judged}");
    assert!(
        wrong.is_empty(),
        "{} of {judged}:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Both readers (the fast one and the grammar) give the same concerns here: see
/// `differential.rs`. This checks the concern is on the command that makes the change.
#[test]
fn the_concern_names_the_part_that_changes_state() {
    let p = parse_command("ls && shopt -s expand_aliases && ls").expect("parses");
    assert_eq!(p.concerns.len(), 1);
    assert_eq!(p.concerns[0].context, "shopt -s expand_aliases");
    assert!(p.forced_ask());
}
