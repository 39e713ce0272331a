//! `worktree.copy`: untracked files the work needs (`.env`, local configuration, a
//! `node_modules`) copied from the project into a new checkout. Only regular files and
//! folders are followed on the project's side; a link the glob names is skipped and said.
//! In a copied folder, links are copied as links (never followed). The checkout is new and
//! nothing else writes to it yet, so a committed link on the way to a destination is found
//! by looking (and refused), not raced.

use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use paddock_protocol::CopiedFiles;

use crate::WorktreeError;

/// Folders never walked into looking for a match (a glob naming one still copies it).
const NOT_SEARCHED: &[&str] = &[".git", "node_modules", "target", ".venv", "__pycache__"];
/// Entries looked at at most while matching.
const MAX_SEARCHED: usize = 200_000;

/// Copies what `globs` match under `project` into `checkout` (same relative paths). A
/// path git already checked out is left as the branch has it.
pub fn copy_into(
    project: &Path,
    checkout: &Path,
    globs: &[String],
) -> Result<CopiedFiles, WorktreeError> {
    let mut out = CopiedFiles::default();
    if globs.is_empty() {
        return Ok(out);
    }
    let set = glob_set(globs)?;
    let mut matched = Vec::new();
    let mut searched = 0usize;
    find(
        project,
        Path::new(""),
        &set,
        globs,
        &mut matched,
        &mut searched,
    );
    for rel in matched {
        copy_entry(project, checkout, &rel, &mut out);
    }
    Ok(out)
}

fn glob_set(globs: &[String]) -> Result<GlobSet, WorktreeError> {
    let mut builder = GlobSetBuilder::new();
    for g in globs {
        let glob: Glob = GlobBuilder::new(g.trim_end_matches('/'))
            .literal_separator(true)
            .build()
            .map_err(|e| WorktreeError::Io {
                context: format!("worktree.copy: '{g}' is not a glob"),
                source: std::io::Error::other(e.to_string()),
            })?;
        builder.add(glob);
    }
    builder.build().map_err(|e| WorktreeError::Io {
        context: "worktree.copy".into(),
        source: std::io::Error::other(e.to_string()),
    })
}

/// Whether a folder at `rel` may hold a match: a glob's literal start names it, or the
/// glob can reach any depth.
fn may_hold(globs: &[String], rel: &str) -> bool {
    globs.iter().any(|g| {
        let literal: Vec<&str> = g
            .split('/')
            .take_while(|p| !p.contains(['*', '?', '[', '{']))
            .collect();
        let deep = g.contains("**");
        let parts: Vec<&str> = rel.split('/').collect();
        let shared = parts
            .iter()
            .zip(&literal)
            .take_while(|(a, b)| a == b)
            .count();
        // Inside the literal start, or past it with a glob that can still match below.
        (shared == parts.len() && parts.len() <= literal.len())
            || (shared == literal.len() && (deep || parts.len() < g.split('/').count()))
    })
}

fn find(
    project: &Path,
    rel: &Path,
    set: &GlobSet,
    globs: &[String],
    matched: &mut Vec<PathBuf>,
    searched: &mut usize,
) {
    let Ok(entries) = std::fs::read_dir(project.join(rel)) else {
        return;
    };
    for entry in entries.flatten() {
        *searched += 1;
        if *searched > MAX_SEARCHED {
            return;
        }
        let child = rel.join(entry.file_name());
        let text = child.to_string_lossy().into_owned();
        if set.is_match(&child) {
            matched.push(child);
            continue;
        }
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        let name = entry.file_name();
        let hidden_from_search = NOT_SEARCHED.iter().any(|n| name == *n);
        if is_dir && may_hold(globs, &text) && (!hidden_from_search || named_in(globs, &text)) {
            find(project, &child, set, globs, matched, searched);
        }
    }
}

fn named_in(globs: &[String], rel: &str) -> bool {
    globs.iter().any(|g| g.starts_with(&format!("{rel}/")))
}

fn copy_entry(project: &Path, checkout: &Path, rel: &Path, out: &mut CopiedFiles) {
    let source = project.join(rel);
    let shown = rel.to_string_lossy().into_owned();
    let Ok(meta) = std::fs::symlink_metadata(&source) else {
        out.skipped.push(format!("{shown}: unreadable"));
        return;
    };
    if let Err(why) = parents_free(checkout, rel) {
        out.skipped.push(format!("{shown}: {why}"));
        return;
    }
    let dest = checkout.join(rel);
    if std::fs::symlink_metadata(&dest).is_ok() {
        out.skipped
            .push(format!("{shown}: already in the checkout (tracked by git)"));
        return;
    }
    if meta.file_type().is_symlink() {
        out.skipped.push(format!(
            "{shown}: a link (only files and folders are copied)"
        ));
        return;
    }
    let result = if meta.is_dir() {
        out.paths.push(format!("{shown}/"));
        copy_dir(&source, &dest, out)
    } else if meta.is_file() {
        out.paths.push(shown.clone());
        copy_file(&source, &dest, meta.permissions().mode(), out)
    } else {
        out.skipped.push(format!("{shown}: not a regular file"));
        Ok(())
    };
    if let Err(e) = result {
        out.skipped.push(format!("{shown}: {e}"));
    }
}

/// The folders on the way to `rel` in the checkout: made when missing, refused when one is
/// a link (a committed `config -> ~/.ssh` would lead the copy out).
fn parents_free(checkout: &Path, rel: &Path) -> Result<(), String> {
    let mut at = checkout.to_path_buf();
    let Some(parent) = rel.parent() else {
        return Ok(());
    };
    for part in parent.components() {
        let Component::Normal(part) = part else {
            return Err("not a plain path".into());
        };
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(format!("{} in the checkout is a link", at.display()));
            }
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(format!("{} in the checkout is not a folder", at.display())),
            Err(_) => std::fs::DirBuilder::new()
                .mode(0o755)
                .create(&at)
                .map_err(|e| e.to_string())?,
        }
    }
    Ok(())
}

fn copy_file(source: &Path, dest: &Path, mode: u32, out: &mut CopiedFiles) -> std::io::Result<()> {
    // A regular file only, opened without blocking and never through a link.
    let mut from = paddock_guard::open_regular(source, u64::MAX, paddock_guard::Links::Refuse)
        .map_err(|e| std::io::Error::other(e.to_string()))?
        .into_file();
    let mut to = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .mode(mode & 0o777)
        .open(dest)?;
    // copy_file_range underneath: shared extents where the file system has them.
    out.bytes += std::io::copy(&mut from, &mut to)?;
    out.files += 1;
    Ok(())
}

fn copy_dir(source: &Path, dest: &Path, out: &mut CopiedFiles) -> std::io::Result<()> {
    std::fs::DirBuilder::new().mode(0o755).create(dest)?;
    for entry in std::fs::read_dir(source)? {
        let entry = entry?;
        let (from, to) = (entry.path(), dest.join(entry.file_name()));
        let meta = std::fs::symlink_metadata(&from)?;
        if meta.file_type().is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&from)?, &to)?;
            out.files += 1;
        } else if meta.is_dir() {
            copy_dir(&from, &to, out)?;
        } else if meta.is_file() {
            copy_file(&from, &to, meta.permissions().mode(), out)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_folders_a_glob_can_reach_are_walked() {
        let g = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert!(may_hold(&g(&["config/local.json"]), "config"));
        assert!(!may_hold(&g(&["config/local.json"]), "src"));
        assert!(!may_hold(&g(&[".env"]), "src"));
        assert!(may_hold(&g(&["**/.env"]), "src/deep"));
        assert!(may_hold(&g(&["apps/*/.env"]), "apps/web"));
        assert!(!may_hold(&g(&["apps/*/.env"]), "apps/web/src"));
    }
}
