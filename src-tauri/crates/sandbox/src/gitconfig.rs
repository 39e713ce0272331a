//! The user's git configuration as bash sees it behind the wall: `~/.gitconfig` and
//! `~/.config/git/config` merged, without what holds or fetches credentials (credential
//! helpers, includes, extra HTTP headers, URLs with a password in them, keys named like a
//! secret). Written once per content to a private folder and shown at `~/.gitconfig`.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::env::looks_secret;
use crate::policy::Overlay;

/// Bytes read at most from each configuration file.
const MAX_CONFIG_BYTES: u64 = 256 * 1024;

/// Sections dropped whole: they hold or fetch credentials, or pull in other files (hidden
/// behind the wall anyway, and a place credentials live).
const DROPPED_SECTIONS: &[&str] = &["credential", "include", "includeif"];

/// Keys dropped in any section (lower case, without the section).
const DROPPED_KEYS: &[&str] = &[
    "extraheader",
    "cookiefile",
    "sslkey",
    "sslcertpasswordprotected",
];

/// The overlay for the home folder `home`, or `None` when it has no git configuration (or
/// the private folder cannot be made).
pub fn overlay(home: &Path) -> Option<Overlay> {
    let mut merged = String::new();
    for rel in [".config/git/config", ".gitconfig"] {
        if let Some(text) = read_own(&home.join(rel)) {
            merged.push_str(&stripped(&text));
        }
    }
    if merged.is_empty() {
        return None;
    }
    let source = write_private(&merged)?;
    Some(Overlay {
        source,
        target: home.join(".gitconfig"),
    })
}

/// A file of the user's own (links followed, as git does), bounded.
fn read_own(path: &Path) -> Option<String> {
    // A regular file (the user's may be a link), opened without blocking; cut at the cap.
    let file = paddock_guard::open_regular(path, u64::MAX, paddock_guard::Links::Follow).ok()?;
    let mut text = String::new();
    file.into_file()
        .take(MAX_CONFIG_BYTES)
        .read_to_string(&mut text)
        .ok()?;
    Some(text)
}

/// The configuration without credentials. Lines it does not understand are dropped too.
pub fn stripped(text: &str) -> String {
    let mut out = String::new();
    let mut keep_section = false;
    let mut keep_key = false;
    let mut continued = false;
    for line in text.lines() {
        if continued {
            if keep_key {
                out.push_str(line);
                out.push('\n');
            }
            continued = line.trim_end().ends_with('\\');
            continue;
        }
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        if let Some(header) = trimmed.strip_prefix('[') {
            let Some((inside, _rest)) = header.split_once(']') else {
                keep_section = false;
                continue;
            };
            keep_section = section_kept(inside);
            if keep_section {
                out.push('[');
                out.push_str(inside);
                out.push_str("]\n");
            }
            continue;
        }
        let key = trimmed
            .split(['=', ' ', '\t'])
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        keep_key = keep_section
            && !key.is_empty()
            && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            && !DROPPED_KEYS.contains(&key.as_str())
            && !key.contains("pass")
            && !looks_secret(&key);
        if keep_key {
            out.push('\t');
            out.push_str(trimmed);
            out.push('\n');
        }
        continued = trimmed.ends_with('\\');
    }
    out
}

/// Whether a section header (between the brackets) is kept.
fn section_kept(header: &str) -> bool {
    let (name, sub) = match header.split_once([' ', '.']) {
        Some((name, sub)) => (name, Some(sub.trim().trim_matches('"'))),
        None => (header.trim(), None),
    };
    let name = name.to_ascii_lowercase();
    if DROPPED_SECTIONS.contains(&name.as_str()) || looks_secret(&name) {
        return false;
    }
    // `[url "https://user:token@host/"]`, `[http "https://user:pw@host"]`: a password in
    // the name.
    !sub.is_some_and(has_userinfo_password)
}

fn has_userinfo_password(url: &str) -> bool {
    let Some((_, rest)) = url.split_once("://") else {
        return false;
    };
    let authority = rest.split('/').next().unwrap_or_default();
    authority
        .rsplit_once('@')
        .is_some_and(|(userinfo, _)| userinfo.contains(':'))
}

/// Writes `text` to Paddock's private runtime folder (0700, ours), named by its content so
/// commands share one copy. `None` when the folder is not safely ours.
fn write_private(text: &str) -> Option<PathBuf> {
    use std::hash::{Hash, Hasher};
    let dir = crate::runtime::runtime_dir()?;
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    let path = dir.join(format!("gitconfig-{:016x}", hasher.finish()));
    if std::fs::read_to_string(&path).is_ok_and(|t| t == text) {
        return Some(path);
    }
    crate::runtime::write_private_file(&path, text.as_bytes()).ok()?;
    Some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_go_and_the_rest_stays() {
        let text = "\
[user]
\tname = Ada
\temail = ada@example.org
[credential]
\thelper = store
[credential \"https://github.com\"]
\thelper = !gh auth git-credential
[http]
\textraHeader = AUTHORIZATION: basic SECRET1
[url \"https://ada:SECRET2@github.com/\"]
\tinsteadOf = https://github.com/
[include]
\tpath = ~/.gitconfig-work
[github]
\ttoken = SECRET3
[sendemail]
\tsmtpPass = SECRET4
[alias]
\tlg = log --oneline \\
\t  --graph
[core]
\teditor = vim
";
        let out = stripped(text);
        for secret in ["SECRET", "helper", "include", "gitconfig-work"] {
            assert!(!out.contains(secret), "{secret} kept:\n{out}");
        }
        for kept in [
            "name = Ada",
            "email = ada@example.org",
            "editor = vim",
            "--graph",
        ] {
            assert!(out.contains(kept), "{kept} lost:\n{out}");
        }
    }

    #[test]
    fn a_url_without_a_password_is_kept() {
        assert!(!has_userinfo_password("https://github.com/"));
        assert!(!has_userinfo_password("ssh://git@github.com/x"));
        assert!(has_userinfo_password("https://u:p@h/x"));
    }
}
