//! git settings every bash call the user did not look at runs with (issue 50, class 9): a
//! rule that allows `git status` allows git, not the programs a repository's configuration
//! names. The front judges the repository's configuration; these turn off, for the same
//! call, the keys whose programs no unattended command needs, and point git's hooks at the
//! gate's scripts. The front gives them again to the other end of a local fetch or push,
//! which git starts without them.

use std::path::Path;

/// Keys and the value that turns their program off. (`diff.external` has no such value:
/// an empty one makes every `git diff` fail; the front judges the repository's.)
const PROGRAMS_OFF: &[(&str, &str)] = &[
    ("core.fsmonitor", "false"),
    ("core.pager", "cat"),
    ("core.editor", "true"),
    ("sequence.editor", "true"),
    ("core.askPass", ""),
    ("gpg.program", "false"),
    ("credential.helper", ""),
];

/// The variables that give git [`PROGRAMS_OFF`] and `core.hooksPath` = `hooks` as
/// command-line settings (`GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_n`, `GIT_CONFIG_VALUE_n`),
/// which outrank every configuration file.
pub fn call_git_env(hooks: &Path) -> Vec<(String, String)> {
    let hooks = hooks.display().to_string();
    let settings: Vec<(&str, &str)> = PROGRAMS_OFF
        .iter()
        .copied()
        .chain([("core.hooksPath", hooks.as_str())])
        .collect();
    let mut out = vec![("GIT_CONFIG_COUNT".to_owned(), settings.len().to_string())];
    for (i, (key, value)) in settings.iter().enumerate() {
        out.push((format!("GIT_CONFIG_KEY_{i}"), (*key).to_owned()));
        out.push((format!("GIT_CONFIG_VALUE_{i}"), (*value).to_owned()));
    }
    out
}
