//! Which git configuration is inert: keys that only describe (names, branches, remotes,
//! formats, colours) and never name a program, a hook folder or another file to include.
//! An allow-list: a key nobody listed makes the configuration "runs programs", so a new
//! git feature is held until someone reads it.

/// Keys of `[core]` that only describe the repository or tune performance.
const CORE: &[&str] = &[
    "repositoryformatversion",
    "filemode",
    "bare",
    "logallrefupdates",
    "ignorecase",
    "precomposeunicode",
    "symlinks",
    "autocrlf",
    "eol",
    "safecrlf",
    "quotepath",
    "compression",
    "loosecompression",
    "bigfilethreshold",
    "sharedrepository",
    "checkstat",
    "trustctime",
    "abbrev",
    "preloadindex",
    "untrackedcache",
    "splitindex",
    "commitgraph",
    "multipackindex",
    "whitespace",
    // Where the work tree is (git writes it for every submodule): a folder, not a program.
    "worktree",
];

/// `section.key` pairs (two-level keys) that are inert.
const TWO_LEVEL: &[(&str, &[&str])] = &[
    ("user", &["name", "email", "useconfigonly"]),
    ("author", &["name", "email"]),
    ("committer", &["name", "email"]),
    ("init", &["defaultbranch"]),
    (
        "extensions",
        &[
            "objectformat",
            "worktreeconfig",
            "refstorage",
            "preciousobjects",
        ],
    ),
    (
        "gc",
        &[
            "auto",
            "autopacklimit",
            "autodetach",
            "reflogexpire",
            "pruneexpire",
        ],
    ),
    ("pull", &["rebase", "ff"]),
    ("push", &["default", "autosetupremote", "followtags"]),
    (
        "fetch",
        &[
            "prune",
            "prunetags",
            "writecommitgraph",
            "negotiationalgorithm",
        ],
    ),
    ("merge", &["ff", "conflictstyle"]),
    ("rebase", &["autostash", "autosquash", "updaterefs"]),
    ("commit", &["verbose", "cleanup", "status"]),
    (
        "status",
        &["showuntrackedfiles", "short", "branch", "relativepaths"],
    ),
    (
        "diff",
        &[
            "renames",
            "algorithm",
            "mnemonicprefix",
            "noprefix",
            "colormoved",
        ],
    ),
    ("log", &["date", "decorate", "follow", "abbrevcommit"]),
    ("branch", &["autosetupmerge", "autosetuprebase", "sort"]),
    ("tag", &["sort"]),
    ("index", &["version", "threads"]),
    ("pack", &["threads", "windowmemory"]),
    ("i18n", &["commitencoding", "logoutputencoding"]),
    ("feature", &["manyfiles", "experimental"]),
];

/// Sections whose every key is inert, whatever the subsection (`[color "diff"]`).
const ANY_KEY: &[&str] = &["color", "advice"];

/// `section.<name>.key` keys that are inert.
const THREE_LEVEL: &[(&str, &[&str])] = &[
    (
        "branch",
        &["remote", "merge", "rebase", "description", "pushremote"],
    ),
    (
        "remote",
        &[
            "url",
            "pushurl",
            "fetch",
            "push",
            "tagopt",
            "prune",
            "mirror",
            "promisor",
            "partialclonefilter",
        ],
    ),
    (
        "submodule",
        &["url", "path", "active", "branch", "shallow", "ignore"],
    ),
];

/// The first key of `text` (a git configuration file) that is not known to be inert, as
/// `section.key` or `section.<sub>.key`; `None` when every key is.
pub fn first_active_key(text: &str) -> Option<String> {
    let mut section = String::new();
    let mut sub: Option<String> = None;
    let mut continued = false;
    for line in text.lines() {
        if continued {
            continued = line.trim_end().ends_with('\\');
            continue;
        }
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        if let Some(header) = trimmed.strip_prefix('[') {
            let Some((inside, rest)) = header.split_once(']') else {
                return Some(format!("an unreadable section header '{trimmed}'"));
            };
            let (name, subsection) = split_header(inside);
            section = name;
            sub = subsection;
            // A key may follow the header on the same line.
            let rest = rest.trim();
            if rest.is_empty() || rest.starts_with('#') || rest.starts_with(';') {
                continue;
            }
            if let Some(key) = judge_line(rest, &section, sub.as_deref()) {
                return Some(key);
            }
            continued = rest.ends_with('\\');
            continue;
        }
        if let Some(key) = judge_line(trimmed, &section, sub.as_deref()) {
            return Some(key);
        }
        continued = trimmed.ends_with('\\');
    }
    None
}

/// The value of `core.hooksPath` in `text` (a git configuration file; the last one
/// wins, as in git), without surrounding quotes.
pub fn core_hooks_path(text: &str) -> Option<String> {
    entries(text)
        .filter(|e| {
            e.section == "core" && e.sub.is_none() && e.key.eq_ignore_ascii_case("hookspath")
        })
        .map(|e| e.value)
        .last()
        .filter(|v| !v.is_empty())
}

/// The files `text` (a git configuration file) includes: every `include.path` and
/// `includeIf.<condition>.path`, whatever the condition, as written (without quotes).
pub fn include_paths(text: &str) -> Vec<String> {
    entries(text)
        .filter(|e| {
            ((e.section == "include" && e.sub.is_none()) || e.section == "includeif")
                && e.key.eq_ignore_ascii_case("path")
                && !e.value.is_empty()
        })
        .map(|e| e.value)
        .collect()
}

/// One `key = value` line of a configuration file, with the section it is in.
struct Entry {
    /// Lower case.
    section: String,
    sub: Option<String>,
    key: String,
    /// Without a trailing comment or surrounding quotes.
    value: String,
}

/// The `key = value` lines of `text`, a header's own line included.
fn entries(text: &str) -> impl Iterator<Item = Entry> + '_ {
    let mut section = String::new();
    let mut sub: Option<String> = None;
    text.lines().filter_map(move |line| {
        let mut rest = line.trim();
        if let Some(header) = rest.strip_prefix('[') {
            let (inside, after) = header.split_once(']')?;
            (section, sub) = split_header(inside);
            rest = after.trim();
        }
        let (key, value) = rest.split_once('=')?;
        let value = value.split([';', '#']).next().unwrap_or_default().trim();
        Some(Entry {
            section: section.clone(),
            sub: sub.clone(),
            key: key.trim().to_owned(),
            value: value.trim_matches('"').to_owned(),
        })
    })
}

/// Whether `key` (`section.key` or `section.sub.key`, as `git -c` names it) is known to
/// be inert.
pub fn inert_setting(key: &str) -> bool {
    // The usual way to allow local submodules (since CVE-2022-39253); never another
    // protocol's, `ext::` among them, which runs commands.
    if key.eq_ignore_ascii_case("protocol.file.allow") {
        return true;
    }
    let Some((section, rest)) = key.split_once('.') else {
        return false;
    };
    let section = section.to_ascii_lowercase();
    match rest.rsplit_once('.') {
        Some((_, name)) => inert(&section, true, &name.to_ascii_lowercase()),
        None => inert(&section, false, &rest.to_ascii_lowercase()),
    }
}

/// `section "sub"` or `section.sub` (the old form), the section in lower case.
fn split_header(inside: &str) -> (String, Option<String>) {
    let inside = inside.trim();
    if let Some((name, rest)) = inside.split_once(char::is_whitespace) {
        let sub = rest.trim().trim_matches('"').to_owned();
        return (name.to_ascii_lowercase(), Some(sub));
    }
    match inside.split_once('.') {
        Some((name, sub)) => (name.to_ascii_lowercase(), Some(sub.to_owned())),
        None => (inside.to_ascii_lowercase(), None),
    }
}

/// `None` when the key on this line is inert; else its full name.
fn judge_line(line: &str, section: &str, sub: Option<&str>) -> Option<String> {
    let key = line
        .split(['=', ' ', '\t'])
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    let full = match sub {
        Some(sub) => format!("{section}.{sub}.{key}"),
        None => format!("{section}.{key}"),
    };
    (!inert(section, sub.is_some(), &key)).then_some(full)
}

fn inert(section: &str, has_sub: bool, key: &str) -> bool {
    if section.is_empty() || key.is_empty() {
        return false;
    }
    if ANY_KEY.contains(&section) {
        return true;
    }
    let listed = |table: &[(&str, &[&str])]| {
        table
            .iter()
            .any(|(s, keys)| *s == section && keys.contains(&key))
    };
    if has_sub {
        listed(THREE_LEVEL)
    } else if section == "core" {
        CORE.contains(&key)
    } else {
        listed(TWO_LEVEL)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_setting_named_on_the_command_line_is_judged_like_one_in_a_file() {
        assert!(inert_setting("user.name"));
        assert!(inert_setting("User.Email"));
        assert!(inert_setting("remote.origin.url"));
        assert!(inert_setting("color.diff.meta"));
        assert!(!inert_setting("core.hooksPath"));
        assert!(!inert_setting("filter.x.clean"));
        assert!(!inert_setting("alias.co"));
        assert!(!inert_setting("include.path"));
        assert!(!inert_setting("nodot"));
    }

    #[test]
    fn what_git_init_and_clone_write_is_inert() {
        let init = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\
                    \tlogallrefupdates = true\n";
        assert_eq!(first_active_key(init), None);
        let clone = "[remote \"origin\"]\n\turl = https://example.org/x.git\n\
                     \tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\
                     \tremote = origin\n\tmerge = refs/heads/main\n[user]\n\tname = A\n";
        assert_eq!(first_active_key(clone), None);
    }

    #[test]
    fn the_hooks_path_is_read_from_the_core_section_only() {
        let text = "[core]\n\tbare = false\n\thooksPath = .husky/_ # husky\n\
                    [other]\n\thooksPath = /elsewhere\n";
        assert_eq!(core_hooks_path(text).as_deref(), Some(".husky/_"));
        assert_eq!(
            core_hooks_path("[core] hookspath = \"/opt/hooks\"\n").as_deref(),
            Some("/opt/hooks")
        );
        assert_eq!(core_hooks_path("[core \"x\"]\n\thooksPath = a\n"), None);
        assert_eq!(core_hooks_path("[core]\n\tbare = true\n"), None);
    }

    #[test]
    fn keys_that_run_programs_are_named() {
        for (text, key) in [
            ("[core]\n\tfsmonitor = ./evil\n", "core.fsmonitor"),
            ("[core]\n\thooksPath = .husky\n", "core.hookspath"),
            ("[core]\n\tsshCommand = sh -c evil\n", "core.sshcommand"),
            ("[filter \"x\"]\n\tclean = evil\n", "filter.x.clean"),
            ("[diff \"x\"]\n\ttextconv = evil\n", "diff.x.textconv"),
            ("[alias]\n\tst = !evil\n", "alias.st"),
            ("[include]\n\tpath = ../../cfg\n", "include.path"),
            (
                "[protocol \"ext\"]\n\tallow = always\n",
                "protocol.ext.allow",
            ),
            (
                "[remote \"o\"]\n\tuploadpack = evil\n",
                "remote.o.uploadpack",
            ),
            (
                "[submodule \"s\"]\n\tupdate = !evil\n",
                "submodule.s.update",
            ),
            ("[core] fsmonitor = evil\n", "core.fsmonitor"),
            ("[core.x]\n\tfsmonitor = evil\n", "core.x.fsmonitor"),
        ] {
            assert_eq!(first_active_key(text).as_deref(), Some(key), "{text}");
        }
    }

    #[test]
    fn a_continued_value_is_not_read_as_a_key() {
        let text = "[user]\n\tname = a \\\nfsmonitor = x\n";
        assert_eq!(first_active_key(text), None);
    }

    #[test]
    fn included_files_are_found_under_any_condition() {
        let text = "[user]\n\tname = a\n[include]\n\tpath = ../shared.gitconfig\n\
                    [includeIf \"gitdir:~/work/\"]\n\tpath = \"~/work.gitconfig\" ; note\n\
                    [core]\n\tpath = not-an-include\n[include] path = inline\n";
        assert_eq!(
            include_paths(text),
            ["../shared.gitconfig", "~/work.gitconfig", "inline"]
        );
        assert!(include_paths("[user]\n\tname = a\n").is_empty());
    }
}
