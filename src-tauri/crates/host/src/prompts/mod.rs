//! Saved prompts, run as `/name args`: Markdown files in `<project>/.paddock/prompts/` and in
//! the user's config folder (`<config>/prompts/`, beside `trust.json`). A project's files were
//! written by whoever wrote the project: they are read as a stranger's files (small regular
//! files, never through a symlink, the folder itself inside the project), and a project
//! prompt is shown in full and confirmed before it is first sent; the confirmation (a digest
//! of the content) lives in the trust record, so a changed prompt asks again. A prompt is only
//! text: its front-matter may describe it, never run, choose or grant anything.
//!
//! Names: the file name without `.md`, `[a-z0-9][a-z0-9_-]*`. The user's own prompt keeps
//! `/name` when the project has one of the same name (Claude Code: personal over project),
//! and the project's is then `/project:name`.

mod template;

use std::path::{Path, PathBuf};

use paddock_guard::{Links, read_regular_text};
use paddock_protocol::{ExpandedPrompt, PromptSource, PromptStatus, SavedPrompt};
use sha2::{Digest, Sha256};

pub use template::{fill, split_words};

use crate::settings::SETTINGS_DIR;
use crate::trust::{TrustError, TrustStore};

/// The folder of saved prompts, in `.paddock/` and in the user's config folder.
pub const PROMPTS_DIR: &str = "prompts";
/// Largest prompt file read.
pub const MAX_PROMPT_BYTES: u64 = 64 * 1024;
/// At most this many files of a folder are looked at.
pub const MAX_PROMPT_FILES: usize = 500;
/// Longest name.
const MAX_NAME_CHARS: usize = 64;
/// What a project prompt is called when the user's own takes its name.
const PROJECT_PREFIX: &str = "project:";

#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    #[error("no saved prompt /{name}; {}", list_names(.available))]
    Unknown {
        name: String,
        available: Vec<String>,
    },
    #[error("the saved prompt /{name} ({path}) cannot be used: {problem}")]
    Broken {
        name: String,
        path: String,
        problem: String,
    },
    #[error(
        "the saved prompt /{name} changed since it was shown to you; look at it again before \
         sending it"
    )]
    Changed { name: String },
    #[error("/{name} is the user's own prompt; only a project's prompts are confirmed")]
    NotProject { name: String },
    #[error(transparent)]
    Trust(#[from] TrustError),
}

fn list_names(names: &[String]) -> String {
    if names.is_empty() {
        format!("there are none (put Markdown files in {SETTINGS_DIR}/{PROMPTS_DIR}/)")
    } else {
        format!("saved prompts: /{}", names.join(", /"))
    }
}

/// `/name args` as typed: the name and the rest; `None` when the text is no invocation.
pub fn parse_invocation(text: &str) -> Option<(&str, &str)> {
    let rest = text.trim_start().strip_prefix('/')?;
    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let (name, args) = rest.split_at(end);
    let valid = !name.is_empty()
        && name
            .strip_prefix(PROJECT_PREFIX)
            .unwrap_or(name)
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    valid.then_some((name, args.trim()))
}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
        && name.len() <= MAX_NAME_CHARS
}

/// One prompt file as found, read or not.
struct Found {
    entry: SavedPrompt,
    /// The file's stem (the trust record's key for a project prompt).
    file: String,
    text: Option<String>,
    digest: String,
}

/// The saved prompts of the project at `root` (a canonical path), with the user's.
pub struct SavedPrompts<'a> {
    store: &'a TrustStore,
    root: &'a Path,
    user_dir: PathBuf,
}

impl<'a> SavedPrompts<'a> {
    /// The user's prompts are looked for beside the trust record (`PADDOCK_CONFIG_DIR`).
    pub fn new(store: &'a TrustStore, root: &'a Path) -> Self {
        Self {
            store,
            root,
            user_dir: store.config_dir().join(PROMPTS_DIR),
        }
    }

    /// Every saved prompt, sorted by name; a broken file is listed with its error.
    pub fn list(&self) -> Vec<SavedPrompt> {
        self.found().into_iter().map(|f| f.entry).collect()
    }

    /// `/name args` filled in. A project prompt not confirmed with this content comes with
    /// `needs_confirmation` and an empty `text`: the text to send only comes from
    /// [`Self::confirm`].
    pub fn expand(&self, name: &str, args: &str) -> Result<ExpandedPrompt, PromptError> {
        let found = self.find(name)?;
        let needs = matches!(
            found.entry.status,
            PromptStatus::Unconfirmed | PromptStatus::Changed
        );
        Ok(expanded(found, args, !needs))
    }

    /// The user saw the project prompt `name` (content `digest`) and sends it: recorded, and
    /// the prompt filled in. Refused when the file changed since it was shown.
    pub fn confirm(
        &self,
        name: &str,
        args: &str,
        digest: &str,
    ) -> Result<ExpandedPrompt, PromptError> {
        let found = self.find(name)?;
        if found.entry.source != PromptSource::Project {
            return Err(PromptError::NotProject { name: name.into() });
        }
        if found.digest != digest {
            return Err(PromptError::Changed { name: name.into() });
        }
        self.store.confirm_prompt(self.root, &found.file, digest)?;
        Ok(expanded(found, args, true))
    }

    fn find(&self, name: &str) -> Result<Found, PromptError> {
        let all = self.found();
        let available = all
            .iter()
            .filter(|f| f.text.is_some())
            .map(|f| f.entry.name.clone())
            .collect();
        let Some(found) = all.into_iter().find(|f| f.entry.name == name) else {
            return Err(PromptError::Unknown {
                name: name.into(),
                available,
            });
        };
        if found.text.is_none() {
            return Err(PromptError::Broken {
                name: name.into(),
                path: found.entry.path,
                problem: found.entry.error.unwrap_or_default(),
            });
        }
        Ok(found)
    }

    fn found(&self) -> Vec<Found> {
        let confirmed = self.store.confirmed_prompts(self.root);
        let project_dir = self.root.join(SETTINGS_DIR).join(PROMPTS_DIR);
        let mut project = match inside(self.root, &project_dir) {
            Ok(()) => read_folder(&project_dir, PromptSource::Project),
            Err(problem) => vec![broken_folder(&project_dir, problem)],
        };
        let user = read_folder(&self.user_dir, PromptSource::User);
        for p in &mut project {
            if p.text.is_some() {
                p.entry.status = match confirmed.get(&p.file) {
                    Some(d) if *d == p.digest => PromptStatus::Ready,
                    Some(_) => PromptStatus::Changed,
                    None => PromptStatus::Unconfirmed,
                };
            }
            if user.iter().any(|u| u.entry.name == p.entry.name) {
                p.entry.name = format!("{PROJECT_PREFIX}{}", p.entry.name);
            }
        }
        let mut all: Vec<Found> = user.into_iter().chain(project).collect();
        all.sort_by(|a, b| a.entry.name.cmp(&b.entry.name));
        all
    }
}

fn expanded(found: Found, args: &str, with_text: bool) -> ExpandedPrompt {
    let file_text = found.text.unwrap_or_default();
    let text = match (with_text, template::parse(&file_text)) {
        (true, Ok(t)) => fill(&t.body, args),
        _ => String::new(),
    };
    ExpandedPrompt {
        name: found.entry.name,
        source: found.entry.source,
        path: found.entry.path,
        text,
        file_text,
        digest: found.digest,
        needs_confirmation: !with_text,
    }
}

/// The prompts folder must be where it says, not reached through a link out of the project.
fn inside(root: &Path, dir: &Path) -> Result<(), String> {
    match std::fs::canonicalize(dir) {
        Ok(real) if real == dir => Ok(()),
        Ok(real) if real.starts_with(root) => Err(format!(
            "{} is reached through a symlink; Paddock reads saved prompts only from the folder \
             itself",
            dir.display()
        )),
        Ok(_) => Err(format!(
            "{} leads out of the project (a symlink); its files are not read",
            dir.display()
        )),
        Err(_) => Ok(()),
    }
}

fn broken_folder(dir: &Path, problem: String) -> Found {
    Found {
        entry: SavedPrompt {
            name: format!("{SETTINGS_DIR}/{PROMPTS_DIR}"),
            source: PromptSource::Project,
            path: dir.display().to_string(),
            description: String::new(),
            argument_hint: None,
            status: PromptStatus::Broken,
            error: Some(problem),
        },
        file: String::new(),
        text: None,
        digest: String::new(),
    }
}

/// The `.md` files of `dir` (none when it does not exist), each read or with its error.
fn read_folder(dir: &Path, source: PromptSource) -> Vec<Found> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".md") && !n.starts_with('.'))
        .take(MAX_PROMPT_FILES)
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|file_name| read_one(dir, &file_name, source))
        .collect()
}

fn read_one(dir: &Path, file_name: &str, source: PromptSource) -> Found {
    let stem = file_name.trim_end_matches(".md").to_owned();
    let path = dir.join(file_name);
    let mut entry = SavedPrompt {
        name: stem.clone(),
        source,
        path: path.display().to_string(),
        description: String::new(),
        argument_hint: None,
        status: PromptStatus::Ready,
        error: None,
    };
    let read = if !valid_name(&stem) {
        Err(format!(
            "the name `{stem}` is not a prompt name (lower-case letters, digits, `-` and `_`, \
             starting with a letter or digit)"
        ))
    } else {
        read_text(&path, source).and_then(|text| {
            let t = template::parse(&text)?;
            Ok((text, t))
        })
    };
    let (text, digest) = match read {
        Ok((text, t)) => {
            entry.description = t
                .description
                .unwrap_or_else(|| first_line(&t.body).to_owned());
            entry.argument_hint = t.argument_hint;
            let digest = digest_of(&text);
            (Some(text), digest)
        }
        Err(problem) => {
            entry.status = PromptStatus::Broken;
            entry.error = Some(problem);
            (None, String::new())
        }
    };
    Found {
        entry,
        file: stem,
        text,
        digest,
    }
}

/// A project's file as a stranger's (never through a symlink); the user's own may be a link
/// (dotfiles), to a small regular file still.
fn read_text(path: &Path, source: PromptSource) -> Result<String, String> {
    let links = match source {
        PromptSource::Project => Links::Refuse,
        PromptSource::User => Links::Follow,
    };
    read_regular_text(path, MAX_PROMPT_BYTES, links).map_err(|e| e.to_string())
}

fn first_line(body: &str) -> &str {
    let line = body.lines().map(str::trim).find(|l| !l.is_empty());
    let line = line.unwrap_or("");
    match line.char_indices().nth(100) {
        Some((at, _)) => &line[..at],
        None => line,
    }
}

/// SHA-256 of a prompt's text, as hex.
pub fn digest_of(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Every name a prompt could have (for messages), from a list.
pub fn names(list: &[SavedPrompt]) -> Vec<String> {
    list.iter()
        .filter(|p| p.status != PromptStatus::Broken)
        .map(|p| p.name.clone())
        .collect()
}
