//! git judged as text: which configuration is inert, and which arguments make git run a
//! program named right there (`-c core.hooksPath=…`, `rebase -x`, `fetch --upload-pack`).
//! A rule that allows `git rebase` allows git, not the command given to `-x`: the bash rules
//! ask about such arguments, and the wall's git front refuses them in a command nobody
//! approved (git started by another program never went past the rules).

mod config;

pub use config::{core_hooks_path, first_active_key, include_paths, inert_setting};

/// git's options before its command that take the next word as their value.
const GLOBAL_WITH_VALUE: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--config-env",
    "--attr-source",
];

/// Per command, its options whose value is a program git runs, a folder it copies hooks
/// and configuration from, or a setting (judged like `-c`).
const PROGRAM_OPTIONS: &[(&str, &[&str])] = &[
    ("rebase", &["-x", "--exec"]),
    ("fetch", &["--upload-pack"]),
    ("pull", &["--upload-pack"]),
    ("clone", &["-u", "--upload-pack", "--template"]),
    ("init", &["--template"]),
    ("ls-remote", &["-u", "--upload-pack"]),
    ("fetch-pack", &["--upload-pack", "--exec"]),
    ("archive", &["--exec"]),
    ("push", &["--receive-pack", "--exec"]),
    ("send-pack", &["--receive-pack", "--exec"]),
    ("difftool", &["-x", "--extcmd"]),
    ("grep", &["-O", "--open-files-in-pager"]),
    ("help", &["-w", "--web"]),
    ("daemon", &["--access-hook"]),
    ("svn", &["--authors-prog"]),
    (
        "send-email",
        &[
            "--smtp-server",
            "--to-cmd",
            "--cc-cmd",
            "--header-cmd",
            "--sendmail-cmd",
        ],
    ),
];

/// Commands whose merge strategy option names `git-merge-<strategy>`, which git runs: a
/// strategy holding a `/` is a program by its path. (`-s` is sign-off for cherry-pick and
/// revert.)
const STRATEGY_OPTIONS: &[(&str, &str, Option<char>)] = &[
    ("merge", "strategy", Some('s')),
    ("rebase", "strategy", Some('s')),
    ("pull", "strategy", Some('s')),
    ("cherry-pick", "strategy", None),
    ("revert", "strategy", None),
];

/// Commands whose settings options (`clone -c key=value`) are judged like git's own `-c`.
const SETTING_OPTIONS: &[(&str, &[&str])] = &[("clone", &["-c", "--config"])];

/// A command and the word after it that runs the words that follow (`submodule foreach`).
const PROGRAM_WORDS: &[(&str, &str)] = &[
    ("submodule", "foreach"),
    ("submodule--helper", "foreach"),
    ("bisect", "run"),
];

/// Commands that run programs given to them, whatever the options.
const PROGRAM_COMMANDS: &[&str] = &[
    "filter-branch",
    "instaweb",
    "web--browse",
    "remote-ext",
    "remote-fd",
    "merge-index",
];

/// Commands whose `--tool` names a script git sources from its own folder: a name with a
/// `/` climbs out of it.
const TOOL_COMMANDS: &[&str] = &["difftool", "mergetool"];

/// An argument that makes git run a program it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgramArgument {
    /// The option or word as a rule would name it (`-x`, `-c`, `foreach`).
    pub word: String,
    /// Why, for a person.
    pub why: String,
}

impl ProgramArgument {
    fn new(word: &str, why: String) -> Self {
        Self {
            word: word.to_owned(),
            why,
        }
    }
}

/// The first of git's arguments (`args`: the words after `git`; `None` for a word only known
/// when it runs) that makes git run a program it names, described for a person: a setting
/// not known to be inert (`-c`, `--config-env`, `clone -c`), `--exec-path=`, or one of the
/// options and commands above. `None` when there is none.
pub fn program_argument(args: &[Option<&str>]) -> Option<ProgramArgument> {
    let mut i = 0;
    // Options before the command.
    let command = loop {
        let arg = args.get(i)?;
        let Some(arg) = arg else {
            let why = "git's command is only known when it runs".to_owned();
            return Some(ProgramArgument::new("", why));
        };
        if !arg.starts_with('-') {
            break *arg;
        }
        if let Some(why) = global_option(arg, args.get(i + 1).copied().flatten()) {
            return Some(ProgramArgument::new(
                arg.split('=').next().unwrap_or(arg),
                why,
            ));
        }
        if GLOBAL_WITH_VALUE.contains(arg) {
            i += 1;
        }
        i += 1;
    };
    if PROGRAM_COMMANDS.contains(&command) {
        let why = format!("`git {command}` runs the programs given to it");
        return Some(ProgramArgument::new(command, why));
    }
    let rest = &args[i + 1..];
    if let Some((_, word)) = PROGRAM_WORDS.iter().find(|(c, _)| *c == command)
        && rest.iter().flatten().any(|w| w == word)
    {
        let why = format!("`git {command} {word}` runs the command given to it");
        return Some(ProgramArgument::new(word, why));
    }
    let options = PROGRAM_OPTIONS
        .iter()
        .find(|(c, _)| *c == command)
        .map_or(&[][..], |(_, o)| *o);
    let settings = SETTING_OPTIONS
        .iter()
        .find(|(c, _)| *c == command)
        .map_or(&[][..], |(_, o)| *o);
    // Every word is read, past `--` too: an option's value may be `--` itself
    // (`clone -b -- --upload-pack=…`), and git goes on reading options after it.
    let mut j = 0;
    while let Some(arg) = rest.get(j) {
        j += 1;
        let Some(arg) = arg else { continue };
        if let Some((long, short)) = STRATEGY_OPTIONS
            .iter()
            .find(|(c, ..)| *c == command)
            .map(|(_, long, short)| (*long, *short))
            && let Some(path) = option_path(arg, rest.get(j).copied().flatten(), long, short)
        {
            let why = format!(
                "`git {command} --{long}={path}` names a program by its path (git runs \
                 git-merge-<strategy>)"
            );
            return Some(ProgramArgument::new("--strategy", why));
        }
        if TOOL_COMMANDS.contains(&command)
            && let Some(tool) = tool_path(arg, rest.get(j).copied().flatten())
        {
            let why = format!("`git {command} --tool={tool}` names a script outside git's tools");
            return Some(ProgramArgument::new("--tool", why));
        }
        if let Some(option) = options.iter().find(|o| names(arg, o)) {
            let why =
                format!("`{option}` of `git {command}` names a program or template for git to run");
            return Some(ProgramArgument::new(option, why));
        }
        if let Some(option) = settings.iter().find(|o| names(arg, o)) {
            // Only the plain forms are read for their value; an abbreviation or a cluster
            // (`--conf=…`, `-qc…`) is refused rather than misread.
            let plain = *arg == *option || value_of(arg, option).is_some();
            if !plain {
                let why =
                    format!("`git {command} {arg}` sets a setting in a form Paddock does not read");
                return Some(ProgramArgument::new(option, why));
            }
            let value = value_of(arg, option).or_else(|| rest.get(j).copied().flatten());
            if let Some(why) = setting(value, &format!("`git {command} {option}`")) {
                return Some(ProgramArgument::new(option, why));
            }
        }
    }
    None
}

/// The tool `arg` (with `next`, its value when apart) names when it holds a `/`: `-t x/y`,
/// `-ytx/y`, `--tool=x/y`, `--tool x/y` (and the abbreviations git takes).
fn tool_path<'a>(arg: &'a str, next: Option<&'a str>) -> Option<&'a str> {
    option_path(arg, next, "tool", Some('t'))
}

/// The value of option `--LONG` (or `-SHORT`, in a cluster too) that `arg` (with `next`
/// when apart) gives, when it holds a `/`; abbreviations of `LONG` count.
fn option_path<'a>(
    arg: &'a str,
    next: Option<&'a str>,
    long: &str,
    short: Option<char>,
) -> Option<&'a str> {
    let value = if let Some(given) = arg.strip_prefix("--") {
        let (name, value) = match given.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (given, next),
        };
        (!name.is_empty() && long.starts_with(name))
            .then_some(value)
            .flatten()
    } else if let (Some(cluster), Some(short)) = (arg.strip_prefix('-'), short) {
        cluster
            .split_once(short)
            .and_then(|(_, after)| if after.is_empty() { next } else { Some(after) })
    } else {
        None
    };
    value.filter(|v| v.contains('/'))
}

/// Why an option before git's command makes it run a program, if it does.
fn global_option(arg: &str, next: Option<&str>) -> Option<String> {
    if arg.starts_with("--exec-path=") {
        return Some("`--exec-path=` makes git run its commands from another folder".to_owned());
    }
    let value = match arg {
        "-c" | "--config-env" => next,
        _ => value_of(arg, "--config-env"),
    };
    let is_setting = arg == "-c" || arg == "--config-env" || arg.starts_with("--config-env=");
    if !is_setting {
        return None;
    }
    setting(
        value,
        &format!("git's `{}`", arg.split('=').next().unwrap_or(arg)),
    )
}

/// Why a `key=value` setting given as `how` makes git run a program, if it may.
fn setting(value: Option<&str>, how: &str) -> Option<String> {
    let Some(value) = value else {
        return Some(format!("{how} sets a setting only known when it runs"));
    };
    let key = value.split('=').next().unwrap_or(value);
    (!inert_setting(key)).then(|| {
        format!("{how} sets {key}, which may make git run a program (only settings known to be inert pass)")
    })
}

/// Whether `arg` names `option`: `-x`, `-xVALUE` or a cluster holding the letter (`-ix`);
/// `--exec`, `--exec=VALUE` or an abbreviation git would take (`--exe`).
fn names(arg: &str, option: &str) -> bool {
    if let Some(long) = option.strip_prefix("--") {
        let Some(given) = arg.strip_prefix("--") else {
            return false;
        };
        let given = given.split('=').next().unwrap_or(given);
        return !given.is_empty() && long.starts_with(given);
    }
    let (Some(letter), Some(cluster)) = (option.strip_prefix('-'), arg.strip_prefix('-')) else {
        return false;
    };
    !cluster.starts_with('-') && cluster.contains(letter)
}

/// The value attached to `arg` for `option` (`--config=a.b=c`, `-ca.b=c`).
fn value_of<'a>(arg: &'a str, option: &str) -> Option<&'a str> {
    if option.starts_with("--") {
        return arg.strip_prefix(option)?.strip_prefix('=');
    }
    arg.strip_prefix(option).filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judge(line: &str) -> Option<String> {
        let words: Vec<Option<&str>> = line.split_whitespace().map(Some).collect();
        program_argument(&words).map(|p| p.word)
    }

    #[test]
    fn ordinary_commands_pass() {
        for line in [
            "status",
            "-C r commit -q -m x",
            "-c user.name=a -c user.email=b commit -m x",
            "--no-pager log --oneline",
            "clone -c user.name=a https://example.org/r.git",
            "fetch origin",
            "rebase -i main",
            "grep -n needle",
            "submodule update --init",
            "difftool -t vimdiff",
            "mergetool --tool=meld",
            "-c fetch.negotiationAlgorithm=noop fetch origin",
            "-c protocol.file.allow=always submodule add ../x",
            "merge -s ours topic",
            "rebase --strategy=ort -X theirs main",
            "cherry-pick -s abc",
            "merge -m s/x topic",
        ] {
            assert_eq!(judge(line), None, "{line}");
        }
    }

    #[test]
    fn arguments_that_run_a_program_are_named() {
        for line in [
            "-c core.hooksPath=h commit",
            "-c alias.x=!sh status",
            "--config-env=core.fsmonitor=V status",
            "--config-env core.fsmonitor=V status",
            "--exec-path=/tmp/x status",
            "rebase -x make main",
            "rebase -ix make main",
            "rebase -s x/../build.sh HEAD~1",
            "rebase -sx/../build.sh HEAD~1",
            "merge --strategy x/../b.sh topic",
            "pull --strat=x/../b.sh",
            "cherry-pick --strategy=x/../b.sh abc",
            "revert --strategy x/../b.sh abc",
            "rebase --exec=make main",
            "rebase --exe make main",
            "fetch --upload-pack=./evil origin",
            "clone -u ./evil r d",
            "clone --template=t r d",
            "clone -c filter.x.clean=./evil r d",
            "clone --config=core.fsmonitor=./evil r d",
            "init --template t",
            "push --receive-pack=./evil origin",
            "submodule foreach make",
            "bisect run make",
            "filter-branch --tree-filter x",
            "grep -O./evil x",
            "difftool --extcmd=./evil",
            "clone --conf=filter.x.smudge=./evil color.ui d",
            "clone -qcfilter.x.process=../p color.ui d",
            "clone -b -- --upload-pack=./evil color.ui d",
            "rebase -f -X -- -x make HEAD~1",
            "remote-ext origin x",
            "submodule--helper foreach make",
            "daemon --inetd --access-hook=./p",
            "merge-index ../p -a",
            "difftool -y --tool=../../x/tool.sh",
            "mergetool -t ../x",
            "mergetool -yt../x",
            "-c protocol.ext.allow=always fetch ext::x",
        ] {
            assert!(judge(line).is_some(), "{line}");
        }
    }

    #[test]
    fn a_word_known_only_when_it_runs_is_judged_as_it_can_be() {
        assert!(program_argument(&[None, Some("status")]).is_some());
        assert_eq!(judge("rebase --exe make main").as_deref(), Some("--exec"));
        assert_eq!(judge("-c core.hooksPath=h commit").as_deref(), Some("-c"));
        assert_eq!(judge("submodule foreach make").as_deref(), Some("foreach"));
        assert!(program_argument(&[Some("-c"), None, Some("status")]).is_some());
        assert_eq!(program_argument(&[Some("-C"), None, Some("status")]), None);
    }
}
