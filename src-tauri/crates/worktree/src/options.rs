//! What a new worktree is made from, and the name it gets: the one asked for, or words of
//! the first prompt, stepping aside from names and branches already taken.

use crate::git::Repo;
use crate::record::Layout;
use crate::{BRANCH_PREFIX, WorktreeError, valid_name};

/// What a new worktree starts from.
#[derive(Debug, Clone, Default)]
pub struct CreateOptions {
    /// Its name; derived from `hint` (or the time) when unset.
    pub name: Option<String>,
    /// Text to derive a name from (the first prompt).
    pub hint: Option<String>,
    /// The commit or branch to start from; the project's HEAD when unset.
    pub base_ref: Option<String>,
    /// Globs over the project of untracked files to copy in.
    pub copy: Vec<String>,
    /// For a folder outside git: work in a plain copy of it.
    pub plain_copy: bool,
}

/// A worktree name from free text: its first words, lowercase, joined by `-`.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for word in text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if out.len() + word.len() + 1 > 32 {
            break;
        }
        if !out.is_empty() {
            out.push('-');
        }
        out.push_str(&word.to_ascii_lowercase());
    }
    if out.is_empty() {
        "session".to_owned()
    } else {
        out
    }
}

fn taken(repo: Option<&Repo>, layout: &Layout, name: &str) -> Result<bool, WorktreeError> {
    let branch = match repo {
        Some(repo) => repo.git().ok([
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("refs/heads/{BRANCH_PREFIX}{name}"),
        ])?,
        None => false,
    };
    Ok(branch
        || layout.checkout_path(name).exists()
        || layout.records.join(format!("{name}.json")).exists())
}

pub(crate) fn choose_name(
    repo: Option<&Repo>,
    layout: &Layout,
    options: &CreateOptions,
) -> Result<String, WorktreeError> {
    if let Some(name) = &options.name {
        if !valid_name(name) {
            return Err(WorktreeError::BadName { name: name.clone() });
        }
        if taken(repo, layout, name)? {
            return Err(WorktreeError::Exists { name: name.clone() });
        }
        return Ok(name.clone());
    }
    let stem = slug(options.hint.as_deref().unwrap_or("session"));
    for n in 1..1000 {
        let name = if n == 1 {
            stem.clone()
        } else {
            format!("{stem}-{n}")
        };
        if !taken(repo, layout, &name)? {
            return Ok(name);
        }
    }
    Err(WorktreeError::Exists { name: stem })
}
