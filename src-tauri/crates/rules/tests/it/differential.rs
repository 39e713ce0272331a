//! The fast reader of common commands against the full grammar: on every text, both
//! readings give the same parts, roles, words and concerns (with the same quoted context),
//! or the same error. The fast reader declines what it is unsure of; these tests catch it
//! accepting something it reads differently.

use paddock_rules::parse_command;
use paddock_rules::shell::{parse_command_full_grammar, read_fast};
use proptest::prelude::*;

fn same(cmd: &str) {
    assert_eq!(
        parse_command(cmd),
        parse_command_full_grammar(cmd),
        "the two readings differ on {cmd:?}"
    );
}

/// Shapes near the edges of what the fast reader takes.
const CASES: &[&str] = &[
    "",
    "\n\n",
    "ls",
    "ls -la src/",
    "git status && git diff --stat",
    "cargo test 2>&1 | tail -n 40",
    "ls &&\n  cat x",
    "ls ||\n\n cat x",
    "ls |\n wc -l",
    "ls & cat x &",
    "ls ; echo 'é ü' \"日本\"",
    "echo $HOME $1 $? $$ \"$x\" $ \"$\"",
    "echo \"$HOME/x y\" '$HOME'",
    "echo if; echo then; echo done fi",
    "echo a=b; echo =x y",
    "ls &>/dev/null; ls &>> log",
    "ls >&2 2>&- <&0 3>&1-",
    "ls >& out.txt",
    "echo *.rs {a,b} ~/x [ab] a{1..3}",
    "cat < in.txt > out.txt 2> err.txt >> all.txt",
    "echo > /etc/passwd",
    "echo > ../x",
    "cd sub && echo > ../../x",
    "cd .. && echo > x",
    "echo x > ~/x",
    "echo x > \"$f\"",
    "echo x > *.txt",
    "RUST_LOG=debug A='x y' cargo test",
    "PATH=/x ls",
    "LD_PRELOAD=./x.so ls",
    "A=1",
    "A=1 B=2",
    "A= ls",
    "A=$B ls",
    "A=~/bin:~/x ls",
    "A=\"x y\"z ls",
    "A=b=c ls",
    "export A=1 B='x y'",
    "declare -x A=1",
    "env A=1 ls",
    "timeout 5 cargo test",
    "nohup ls &",
    "sudo -u x ls",
    "sh -c 'ls && rm -rf x'",
    "bash -c \"git status; echo ok\"",
    "sh -c 'echo $(date)'",
    "xargs rm -rf",
    "find . -name '*.rs' -exec wc -l {} +",
    "python3 x.py",
    "echo x | python3",
    "echo x | sh",
    "curl x | sh",
    "eval ls",
    "source x.sh",
    ". x.sh",
    "exec ls",
    "$CMD x",
    "\"$CMD\" x",
    "*.sh",
    "{a,b}",
    "'if' x",
    "ls 2>/dev/null",
    "ls 10>x",
    "ls 2>x>y",
    "echo 'a\nb' \"c\nd\"",
    "echo \"it's\" 'say \"hi\"'",
    "echo a'b'\"c\"d",
    "echo '' \"\"",
    "/usr/bin/git status",
    "./git status",
    "git  status",
    "echo x;",
    "echo x&",
    "echo x &;",
    "ls\t-la",
    "read -r x",
    "printf -v 'a[$(id)]' x",
    "test -v 'a[1]'",
    "echo 'a[$(id)]'",
    "unset 'a[$(id)]'",
    "declare 'a[$(id)]=1'",
    "ls && && cat",
    "ls &&& cat",
    "ls | | cat",
    "; ls",
    "ls ;;",
    "ls & & cat",
    "ls >",
    "ls 2>",
    "ls > > x",
    "ls > ;",
    "ls ><x",
    "ls >>> x",
    "ls &> &1",
    "ls >&",
    "ls > 'unclosed",
    "ls \"unclosed",
    "echo hi>x",
    "echo 2>x",
    "echo 2 >x",
    "a=1 b",
    "_=1 b",
    "1a=2 b",
    "a-b=2 c",
    "a.b=2 c",
    "ls $",
    "ls $%",
    "ls \"$-\" $@ $* $#",
    "echo !x !",
    "echo ] ]] } {",
    "echo x | time ls",
    "echo x && ! ls",
    "{ls}",
    "ls; }",
    "echo x ]]",
    "cd /tmp && echo > x",
    "cd && echo > x",
    "cd - && echo > x",
    "cd $D && echo > x",
    "pushd x && echo > y",
    // Variables and options bash reads (both readers hand words to the same judging).
    "export PATH=\"/x:$PATH\" FOO=\"$x\"",
    "export \"$v=1\" $w",
    "printf -vPATH %s x; printf -v out %s x",
    "read -aPATH -p \"$p\" x",
    "declare -n r=PATH; declare -p PATH",
    "unset PATH; unset -f ls",
    "set -euo pipefail; set -k; set -- -k",
    "shopt -s nullglob expand_aliases; shopt -q extdebug",
    "bash -lc ls; bash -eo pipefail -c ls; sh -i",
    "bash --rcfile x -c ls; bash --norc -c ls",
    "LC_ALL=C ls; LC_ALL=zh_CN.GBK ls; LANG=$L ls",
    "env -u PATH ls; env -i ls; env LANG=C ls",
    "echo {PATH} >x; echo {x} >x",
    "echo {PATH}>x",
    "{PATH}>x",
    "echo ${BASH_ENV:=x} \"${PATH:-x}\"",
    "unalias ls",
];

#[test]
fn hand_picked_shapes_read_alike() {
    for cmd in CASES {
        same(cmd);
    }
}

#[test]
fn the_corpus_reads_alike() {
    let text = include_str!("corpus.toml");
    let corpus: toml::Value = toml::from_str(text).expect("corpus parses");
    let cases = corpus["case"].as_array().expect("cases");
    let mut fast = 0;
    for case in cases {
        let Some(cmd) = case.get("cmd").and_then(|c| c.as_str()) else {
            continue;
        };
        let repeat = case.get("repeat").and_then(|r| r.as_integer()).unwrap_or(1);
        let tail = case.get("tail").and_then(|t| t.as_str()).unwrap_or("");
        let full = cmd.repeat(usize::try_from(repeat).unwrap()) + tail;
        same(&full);
        fast += usize::from(read_fast(&full));
    }
    // Most of the corpus is hostile shapes the fast reader declines, but the plain ones
    // must be read fast, or the differential check above checks little.
    assert!(
        fast >= 60,
        "the fast reader took only {fast} corpus commands"
    );
}

#[test]
fn agents_common_commands_are_read_fast() {
    for cmd in [
        "cd src-tauri/crates/rules && cargo test -p paddock-rules --test it -- case_1 2>&1 | tail -n 40",
        "git diff --stat HEAD~1 -- 'src/a b.rs' \"docs/notes 1.md\" | head -20",
        "grep -rn \"fn decide\" src/ --include='*.rs' | wc -l > out.txt",
        "RUST_LOG=debug cargo build --release -p core 2>/dev/null || echo 'build failed'",
        "find . -name '*.rs' -newer build/stamp | sort | uniq && ls -la src/",
        "git add -A && git commit -m \"Judge every simple command on its own\"",
        "npm run test:unit -- --reporter=dot",
    ] {
        assert!(read_fast(cmd), "{cmd:?} is not read fast");
    }
}

/// Tokens to build random commands from: words of every quoting, operators, redirections,
/// and a few the fast reader must decline.
const TOKENS: &[&str] = &[
    "ls",
    "git",
    "status",
    "cat",
    "x",
    "-la",
    "'a b'",
    "\"a b\"",
    "\"$x\"",
    "$x",
    "'$(id)'",
    "a'b'\"c\"",
    "*.rs",
    "~/x",
    "{a,b}",
    "A=1",
    "PATH=/x",
    "A='x y'",
    "B=$x",
    "if",
    "then",
    "fi",
    "for",
    "{",
    "}",
    "!",
    "time",
    "2",
    "1",
    "10",
    "=",
    "é",
    "'é'",
    "sh",
    "-c",
    "timeout",
    "5",
    "env",
    "eval",
    "cd",
    "..",
    "/tmp",
    "find",
    "-exec",
    "python3",
    "&&",
    "||",
    ";",
    "|",
    "&",
    "\n",
    ";;",
    "|&",
    ">",
    ">>",
    "<",
    "2>",
    "2>&1",
    ">&2",
    "&>",
    "&>>",
    "<&0",
    ">&-",
    "<<",
    "<<<",
    "#",
    "(",
    ")",
    "$(",
    "`",
    "\\",
    "$'x'",
    "${x}",
    " ",
    "  ",
    "\t",
    "'",
    "\"",
    "[[",
    "]]",
    "a[1]=2",
    "A+=1",
    "$[1]",
    "export",
    "declare",
    "-n",
    "read",
    "printf",
    "-vPATH",
    "unset",
    "set",
    "shopt",
    "-s",
    "-o",
    "posix",
    "bash",
    "-l",
    "LC_ALL=C",
    "BASH_ENV=x",
    "{PATH}",
];

fn joined(picks: &[(usize, bool)]) -> String {
    let mut out = String::new();
    for &(i, glue) in picks {
        out.push_str(TOKENS[i % TOKENS.len()]);
        if !glue {
            out.push(' ');
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    /// Random token strings (glued or spaced) read alike.
    #[test]
    fn random_commands_read_alike(
        picks in prop::collection::vec((any::<usize>(), prop::bool::weighted(0.2)), 0..24)
    ) {
        let cmd = joined(&picks);
        prop_assert_eq!(parse_command(&cmd), parse_command_full_grammar(&cmd), "{:?}", cmd);
    }

    /// Random text over the characters the fast reader handles reads alike.
    #[test]
    fn random_text_reads_alike(text in "[a-z0-9 =$'\"&|;<>\n\t.*~{},/_-]{0,80}") {
        prop_assert_eq!(parse_command(&text), parse_command_full_grammar(&text), "{:?}", text);
    }
}
