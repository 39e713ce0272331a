//! `Rules::decide` on 2,000-character bash commands against 200 rules. Target: 100 µs per
//! decision. Four shapes of command, since the parser's cost is per token more than per
//! byte: a realistic chain of ~25 agent commands, a dense worst case (~400 tokens), a
//! here-doc writing a file, and a commit with a long message. `parse_command` alone on the
//! chain, and brush-parser's own parse of it, show how much of a decision is parsing.
//! Run with `cargo bench -p paddock-rules --bench rules`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use paddock_rules::{Action, RuleSpec, Rules, parse_command};
use serde_json::{Value, json};

const COMMAND_CHARS: usize = 2_000;
const RULES: usize = 200;

/// 200 rules as a busy project might have them: common tools, many project commands,
/// a few denies, and some whose name is a glob (checked for every command).
fn rules() -> Rules {
    let mut specs = Vec::new();
    let mut push = |action, pattern: String| {
        specs.push(RuleSpec {
            tool: "bash".into(),
            action,
            pattern,
        })
    };
    for p in [
        "git status",
        "git diff *",
        "git log *",
        "git show *",
        "git add *",
        "ls *",
        "cat *",
        "echo *",
        "grep *",
        "rg *",
        "wc *",
        "head *",
        "tail *",
        "sort *",
        "uniq *",
        "cargo test *",
        "cargo build *",
        "cargo clippy *",
        "cargo fmt *",
        "npm run test:*",
        "cd *",
        "find *",
        "mkdir -p *",
        "touch *",
        "sed -n *",
    ] {
        push(Action::Allow, p.to_owned());
    }
    for p in [
        "rm -rf *",
        "git push *",
        "chmod 777 *",
        "dd *",
        "curl * | sh",
    ] {
        push(Action::Deny, p.to_owned());
    }
    push(Action::Ask, "npm run *".to_owned());
    let mut i = 0;
    while specs.len() < RULES {
        let (action, pattern) = match i % 4 {
            0 => (Action::Allow, format!("tool{i} run --profile p{i} *")),
            1 => (Action::Deny, format!("danger{i} *")),
            2 => (Action::Allow, format!("lint{i}* --fix *")),
            _ => (Action::Ask, format!("deploy{i} --env prod{i}")),
        };
        specs.push(RuleSpec {
            tool: "bash".into(),
            action,
            pattern,
        });
        i += 1;
    }
    assert_eq!(specs.len(), RULES);
    Rules::compile(&specs).expect("bench rules compile")
}

/// Repeats `unit` up to the target size, ending on a whole unit.
fn fill(unit: impl Fn(usize) -> String, tail: &str) -> String {
    let mut out = String::new();
    let mut i = 0;
    loop {
        let next = unit(i);
        if out.len() + next.len() + tail.len() > COMMAND_CHARS {
            break;
        }
        out.push_str(&next);
        i += 1;
    }
    out.push_str(tail);
    out
}

fn commands() -> Vec<(&'static str, String)> {
    let chain = fill(
        |i| match i % 5 {
            0 => format!(
                "cd src-tauri/crates/rules && cargo test -p paddock-rules --test it -- case_{i} 2>&1 | tail -n 40 && "
            ),
            1 => format!(
                "git diff --stat HEAD~{i} -- 'src/a b.rs' \"docs/notes {i}.md\" | head -20; "
            ),
            2 => format!("grep -rn \"fn decide\" src/ --include='*.rs' | wc -l > out{i}.txt && "),
            3 => format!(
                "RUST_LOG=debug cargo build --release -p core{i} 2>/dev/null || echo 'build {i} failed'; "
            ),
            _ => format!(
                "find . -name '*.rs' -newer build/stamp{i} | sort | uniq && ls -la src/{i}/ && "
            ),
        },
        "git status",
    );
    let dense = fill(|i| format!("ls -a {i} && cat f{i} | wc -l; "), "git status");
    let code = fill(
        |i| format!("    let value_{i} = compute(&input[{i}..], \"{i}\")?;\n"),
        "",
    );
    let heredoc = format!(
        "cat > src/generated.rs <<'EOF'\n{}EOF",
        &code[..code.len().min(COMMAND_CHARS - 40)]
    );
    let heredoc = heredoc.trim_end_matches(|c| c != '\n').to_owned() + "EOF";
    let prose = fill(
        |i| format!("Judge every simple command on its own (note {i}). "),
        "",
    );
    let commit = format!(
        "git add -A && git commit -m \"{}\"",
        &prose[..COMMAND_CHARS - 40]
    );
    let all = vec![
        ("chain", chain),
        ("dense", dense),
        ("heredoc", heredoc),
        ("commit", commit),
    ];
    for (name, cmd) in &all {
        assert!(
            (COMMAND_CHARS - 100..=COMMAND_CHARS).contains(&cmd.len()),
            "{name} is {} characters",
            cmd.len()
        );
        assert!(parse_command(cmd).is_ok(), "{name} parses");
    }
    all
}

fn bench(c: &mut Criterion) {
    let rules = rules();
    let workspace = Path::new("/ws/project");
    let mut group = c.benchmark_group(format!(
        "decide {RULES} rules, {COMMAND_CHARS}-char command"
    ));
    for (name, cmd) in commands() {
        let input: Value = json!({ "command": cmd });
        let verdict = rules.decide("bash", &input, workspace);
        eprintln!(
            "{name}: {} parts, verdict {:?}: {}",
            parse_command(&cmd).map(|p| p.parts.len()).unwrap_or(0),
            verdict.action,
            verdict.why
        );
        group.bench_function(name, |b| {
            b.iter(|| rules.decide("bash", black_box(&input), workspace))
        });
        if name == "chain" || name == "dense" {
            group.bench_function(format!("{name}, parse_command only"), |b| {
                b.iter(|| parse_command(black_box(&cmd)))
            });
        }
        if name == "chain" {
            // The floor: brush-parser's own parse of the same text, before any judging.
            let opts = brush_parser::ParserOptions {
                enable_extended_globbing: false,
                ..Default::default()
            };
            group.bench_function("chain, brush-parser alone", |b| {
                b.iter(|| {
                    let mut p = brush_parser::Parser::new(
                        std::io::Cursor::new(black_box(cmd.as_bytes())),
                        &opts,
                    );
                    p.parse_program().is_ok()
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
