//! Wrappers: commands that run another command (`timeout 5 cargo test`). Each one's options
//! are read exactly, so the wrapped command is found where the wrapper finds it; an option
//! this table does not know makes the call ask rather than guess.

use super::Word;

/// How a wrapper's options read, so the wrapped command is found exactly.
pub(super) struct Spec {
    pub(super) name: &'static str,
    /// The wrapper needs an allow rule of its own (it changes who runs the command).
    pub(super) needs_allow: bool,
    pub(super) short_value: &'static str,
    pub(super) short_flag: &'static str,
    /// Short options whose value can only be attached (`xargs -i{}`).
    pub(super) short_optional: &'static str,
    pub(super) long_value: &'static [&'static str],
    pub(super) long_flag: &'static [&'static str],
    /// Operands before the command (timeout's duration).
    pub(super) operands: usize,
    /// Leading `NAME=value` words set the command's environment.
    pub(super) assignments: bool,
    /// Options that run the arguments through a shell.
    pub(super) shell: &'static [&'static str],
    /// Options after which nothing is run.
    pub(super) no_command: &'static [&'static str],
}

const fn spec(name: &'static str) -> Spec {
    Spec {
        name,
        needs_allow: false,
        short_value: "",
        short_flag: "",
        short_optional: "",
        long_value: &[],
        long_flag: &[],
        operands: 0,
        assignments: false,
        shell: &[],
        no_command: &[],
    }
}

pub(super) const WRAPPERS: [Spec; 14] = [
    spec("nohup"),
    spec("builtin"),
    spec("busybox"),
    Spec {
        short_value: "n",
        long_value: &["--adjustment"],
        ..spec("nice")
    },
    Spec {
        short_value: "sk",
        short_flag: "v",
        operands: 1,
        long_value: &["--signal", "--kill-after"],
        long_flag: &["--preserve-status", "--foreground", "--verbose"],
        ..spec("timeout")
    },
    Spec {
        short_value: "ioe",
        long_value: &["--input", "--output", "--error"],
        ..spec("stdbuf")
    },
    Spec {
        short_value: "fo",
        short_flag: "apqv",
        long_value: &["--format", "--output"],
        long_flag: &["--append", "--portability", "--quiet", "--verbose"],
        ..spec("time")
    },
    Spec {
        short_flag: "cfw",
        long_flag: &["--ctty", "--fork", "--wait"],
        ..spec("setsid")
    },
    Spec {
        short_value: "cnpPu",
        short_flag: "t",
        no_command: &["-p", "-P", "-u"],
        ..spec("ionice")
    },
    Spec {
        short_flag: "pvV",
        no_command: &["-v", "-V"],
        ..spec("command")
    },
    Spec {
        short_value: "uCS",
        short_flag: "i0v",
        assignments: true,
        long_value: &["--unset", "--chdir", "--split-string"],
        long_flag: &["--ignore-environment", "--null", "--debug"],
        shell: &["-S", "--split-string"],
        ..spec("env")
    },
    Spec {
        short_value: "adEILnPs",
        short_flag: "0rtpxo",
        short_optional: "eil",
        long_value: &[
            "--arg-file",
            "--delimiter",
            "--max-lines",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--process-slot-var",
        ],
        long_flag: &[
            "--null",
            "--no-run-if-empty",
            "--verbose",
            "--interactive",
            "--exit",
            "--open-tty",
            "--replace",
            "--eof",
        ],
        ..spec("xargs")
    },
    Spec {
        needs_allow: true,
        short_value: "CDghpRrTtUu",
        short_flag: "AbBEHknNPSsilvVeK",
        assignments: true,
        long_value: &[
            "--close-from",
            "--chdir",
            "--group",
            "--host",
            "--prompt",
            "--chroot",
            "--role",
            "--type",
            "--command-timeout",
            "--other-user",
            "--user",
        ],
        long_flag: &[
            "--askpass",
            "--background",
            "--bell",
            "--preserve-env",
            "--set-home",
            "--non-interactive",
            "--preserve-groups",
            "--stdin",
            "--shell",
            "--login",
            "--reset-timestamp",
            "--remove-timestamp",
            "--edit",
            "--list",
            "--validate",
        ],
        shell: &["-s", "-i", "--shell", "--login"],
        no_command: &[
            "-e",
            "-l",
            "-v",
            "-V",
            "-K",
            "--edit",
            "--list",
            "--validate",
            "--remove-timestamp",
        ],
        ..spec("sudo")
    },
    Spec {
        needs_allow: true,
        short_value: "uC",
        short_flag: "nLs",
        shell: &["-s"],
        no_command: &["-L", "-C"],
        ..spec("doas")
    },
];

/// What a wrapper's options leave: the index of the wrapped command, and what they said.
pub(super) struct Unwrapped {
    pub(super) at: usize,
    pub(super) options: Vec<(String, Option<String>)>,
    pub(super) assignments: Vec<String>,
}

pub(super) fn unwrap(spec: &Spec, words: &[Word]) -> Result<Unwrapped, String> {
    let mut out = Unwrapped {
        at: 1,
        options: Vec::new(),
        assignments: Vec::new(),
    };
    let mut i = 1;
    while let Some(Some(w)) = words.get(i).map(Word::literal) {
        if w == "--" {
            i += 1;
            break;
        }
        if spec.assignments && is_assignment(w) {
            out.assignments.push(w.to_owned());
            i += 1;
            continue;
        }
        if !out.assignments.is_empty() {
            break;
        }
        if let Some(long) = w.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (format!("--{n}"), Some(v.to_owned())),
                None => (w.to_owned(), None),
            };
            if spec.long_value.contains(&name.as_str()) && value.is_none() {
                let value = words.get(i + 1).map(Word::display);
                out.options.push((name, value));
                i += 2;
            } else if spec.long_value.contains(&name.as_str())
                || spec.long_flag.contains(&name.as_str())
            {
                out.options.push((name, value));
                i += 1;
            } else {
                return Err(w.to_owned());
            }
            continue;
        }
        if w == "-" && spec.name == "env" {
            out.options.push(("-i".to_owned(), None));
            i += 1;
            continue;
        }
        let Some(cluster) = w.strip_prefix('-').filter(|c| !c.is_empty()) else {
            break;
        };
        i += 1;
        for (at, c) in cluster.char_indices() {
            let rest = &cluster[at + c.len_utf8()..];
            let opt = format!("-{c}");
            if spec.short_value.contains(c) {
                let value = if rest.is_empty() {
                    i += 1;
                    words.get(i - 1).map(Word::display)
                } else {
                    Some(rest.to_owned())
                };
                out.options.push((opt, value));
                break;
            } else if spec.short_optional.contains(c) {
                out.options.push((opt, Some(rest.to_owned())));
                break;
            } else if spec.short_flag.contains(c) {
                out.options.push((opt, None));
            } else if c.is_ascii_digit() && spec.name == "nice" {
                out.options
                    .push(("-n".to_owned(), Some(cluster.to_owned())));
                break;
            } else {
                return Err(w.to_owned());
            }
        }
    }
    out.at = i + spec.operands;
    Ok(out)
}

/// env and sudo take any leading `NAME=VALUE` word as an assignment, whatever the name holds
/// (`BASH_FUNC_git%%=() { …; }` exports a function).
fn is_assignment(w: &str) -> bool {
    w.split_once('=').is_some_and(|(name, _)| !name.is_empty())
}

/// Where `exec`'s command starts, past its options (`-a name`, `-c`, `-l`).
pub(super) fn exec_command_at(words: &[Word]) -> usize {
    let mut i = 1;
    while let Some(Some(w)) = words.get(i).map(Word::literal) {
        match w {
            "--" => return i + 1,
            "-a" => i += 2,
            w if w.starts_with('-') && w.len() > 1 => i += 1,
            _ => break,
        }
    }
    i
}

/// The command xargs runs: its words with the input appended, or put where the
/// replace-string stands (`-I {}`).
pub(super) fn xargs_inner(mut inner: Vec<Word>, options: &[(String, Option<String>)]) -> Vec<Word> {
    let replace = options.iter().find_map(|(o, v)| match o.as_str() {
        "-I" => v.clone(),
        "-i" | "--replace" => Some(
            v.clone()
                .filter(|v| !v.is_empty())
                .unwrap_or_else(|| "{}".to_owned()),
        ),
        _ => None,
    });
    if inner.is_empty() {
        inner.push(Word::Literal("echo".to_owned()));
    }
    match replace {
        Some(r) => inner
            .into_iter()
            .map(|w| match w {
                Word::Literal(s) if s.contains(&r) => Word::One(s),
                other => other,
            })
            .collect(),
        None => {
            inner.push(Word::Many {
                raw: "(xargs input)".to_owned(),
                glob: None,
            });
            inner
        }
    }
}
