//! What a git command names besides its own repository, found as git finds it: the
//! repository the other end of a fetch or push uses (git's `enter_repo`), and the files a
//! configuration includes. Where Paddock and git would find different things, git could
//! use one Paddock did not check.

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use paddock_rules::git::include_paths;

use super::{MAX_CONFIG_BYTES, absolute_git_dir};

/// How deep includes are followed, and how many files at most.
const MAX_INCLUDE_DEPTH: usize = 10;
const MAX_INCLUDED: usize = 64;

/// The folder git works in with `options` (each `-C` applied); `None` when unknown.
pub(super) fn working_dir(options: &[OsString]) -> Option<PathBuf> {
    let mut dir = std::env::current_dir().ok()?;
    let mut options = options.iter();
    while let Some(option) = options.next() {
        match option.to_str() {
            Some("-C") => dir = dir.join(options.next()?),
            Some("-c" | "--config-env" | "--namespace" | "--git-dir" | "--work-tree") => {
                options.next();
            }
            _ => {}
        }
    }
    Some(dir)
}

/// The repository a remote-end command (`receive-pack DIR`) uses, as git's `enter_repo`
/// finds it: `~/` expanded, then `DIR/.git`, `DIR`, `DIR.git/.git`, `DIR.git`, the first
/// that is a file (a `.git` file) or a folder git takes for a repository. `None` when none
/// is, or the name is one Paddock cannot read (`~user`).
pub(super) fn remote_repository(
    real: &Path,
    options: &[OsString],
    after: &[&OsStr],
) -> Option<PathBuf> {
    let named = after
        .iter()
        .rev()
        .find(|a| !a.to_string_lossy().starts_with('-'))?;
    let named = expand_home(named)?;
    let named = working_dir(options)?.join(named);
    for tail in ["/.git", "", ".git/.git", ".git"] {
        let mut candidate = named.clone().into_os_string();
        candidate.push(tail);
        let Ok(meta) = std::fs::metadata(&candidate) else {
            continue;
        };
        let mut flag = OsString::from("--git-dir=");
        flag.push(&candidate);
        let found = absolute_git_dir(real, &[flag]);
        if meta.is_file() || found.is_some() {
            // git stops at the first such candidate: so does this (a file it cannot read
            // is no repository, and git fails on it too).
            return found;
        }
    }
    None
}

/// `~/x` (and `~`) from `HOME`, as git expands them; `~user/x` is not read here (`None`).
fn expand_home(path: &OsStr) -> Option<PathBuf> {
    let bytes = path.as_encoded_bytes();
    if bytes.first() != Some(&b'~') {
        return Some(PathBuf::from(path));
    }
    let home = PathBuf::from(std::env::var_os("HOME")?);
    match &bytes[1..] {
        [] => Some(home),
        [b'/', rest @ ..] => {
            let rest = std::str::from_utf8(rest).ok()?;
            Some(home.join(rest))
        }
        _ => None,
    }
}

/// Every file `config` includes, directly or through others, resolved as git resolves
/// them (relative to the including file's folder, `~/` from `HOME`), that exists. `Err`
/// says why the includes cannot be followed (too deep, too many, a `~user` path).
pub fn included_files(config: &Path) -> Result<Vec<PathBuf>, String> {
    let mut found = Vec::new();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut queue = vec![(config.to_path_buf(), 0usize)];
    while let Some((file, depth)) = queue.pop() {
        let Ok(text) =
            paddock_guard::read_regular_text(&file, MAX_CONFIG_BYTES, paddock_guard::Links::Follow)
        else {
            continue;
        };
        for written in include_paths(&text) {
            let target = resolve(&file, &written)
                .ok_or_else(|| format!("an include Paddock cannot resolve ({written})"))?;
            if std::fs::symlink_metadata(&target).is_err() || !seen.insert(target.clone()) {
                continue;
            }
            if depth + 1 > MAX_INCLUDE_DEPTH || seen.len() > MAX_INCLUDED {
                return Err(format!(
                    "includes nested deeper than {MAX_INCLUDE_DEPTH} or more than \
                     {MAX_INCLUDED} files"
                ));
            }
            found.push(target.clone());
            queue.push((target, depth + 1));
        }
    }
    Ok(found)
}

/// An include path as git reads it from `from`.
fn resolve(from: &Path, written: &str) -> Option<PathBuf> {
    let expanded = expand_home(OsStr::new(written))?;
    if expanded.is_absolute() {
        return Some(expanded);
    }
    Some(from.parent()?.join(expanded))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_are_followed_relative_to_the_including_file() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("r/.git")).unwrap();
        std::fs::write(
            d.join("r/.git/config"),
            "[include]\n\tpath = ../../shared.gitconfig\n\tpath = missing\n",
        )
        .unwrap();
        std::fs::write(d.join("shared.gitconfig"), "[include]\n\tpath = more\n").unwrap();
        std::fs::write(d.join("more"), "[include]\n\tpath = shared.gitconfig\n").unwrap();
        let found = included_files(&d.join("r/.git/config")).unwrap();
        let real = d.canonicalize().unwrap();
        let names: Vec<PathBuf> = found
            .iter()
            .map(|p| {
                let p = std::fs::canonicalize(p).unwrap();
                p.strip_prefix(&real).unwrap().to_path_buf()
            })
            .collect();
        assert!(
            names.contains(&PathBuf::from("shared.gitconfig")),
            "{names:?}"
        );
        assert!(names.contains(&PathBuf::from("more")), "{names:?}");
        assert_eq!(names.len(), 2, "a missing include is none: {names:?}");
    }

    #[test]
    fn a_user_named_home_is_not_guessed() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config");
        std::fs::write(&config, "[include]\n\tpath = ~other/x\n").unwrap();
        assert!(included_files(&config).is_err());
        assert_eq!(expand_home(OsStr::new("~other/x")), None);
        assert_eq!(expand_home(OsStr::new("a/~b")), Some(PathBuf::from("a/~b")));
    }
}
