//! git settings every bash call the user did not look at runs with (issue 50, class 9): a
//! rule that allows `git status` allows git, not the programs a repository's configuration
//! names. Configuration the agent wrote in an earlier call is held after that call; these
//! cover the same call, for the keys whose programs no unattended command needs. Hooks run
//! through [`crate::git_hooks`] (those in place before the call); attribute drivers keep
//! working (see DESIGN: the repository's own, kept read-only behind the wall).

/// Keys and the value that turns their program off.
const UNSEEN_CALL_GIT_CONFIG: &[(&str, &str)] = &[
    ("core.fsmonitor", "false"),
    ("core.pager", "cat"),
    ("core.editor", "true"),
    ("sequence.editor", "true"),
    ("core.askPass", ""),
    ("diff.external", ""),
    ("gpg.program", "false"),
    ("credential.helper", ""),
];

/// The variables that give git [`UNSEEN_CALL_GIT_CONFIG`] and `extra` as command-line
/// settings (`GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_n`, `GIT_CONFIG_VALUE_n`), which outrank
/// every configuration file.
pub(crate) fn unseen_call_git_env(extra: &[(&str, String)]) -> Vec<(String, String)> {
    let settings: Vec<(&str, &str)> = UNSEEN_CALL_GIT_CONFIG
        .iter()
        .copied()
        .chain(extra.iter().map(|(k, v)| (*k, v.as_str())))
        .collect();
    let mut out = vec![("GIT_CONFIG_COUNT".to_owned(), settings.len().to_string())];
    for (i, (key, value)) in settings.iter().enumerate() {
        out.push((format!("GIT_CONFIG_KEY_{i}"), (*key).to_owned()));
        out.push((format!("GIT_CONFIG_VALUE_{i}"), (*value).to_owned()));
    }
    out
}
