//! What trust pins of a project hook besides its command: the content (SHA-256) of every
//! project file it runs or reads as its script (issue 50). The command says which files
//! (`Hook::scripts`, read conservatively: every word or path-like text that is a file in the
//! project), and a script's own text says which files it sources, requires or imports in
//! turn. The pins go in the hook's trust value, so a changed script is a changed value and
//! waits for trust; right before each run they are taken again and compared, so a script the
//! agent rewrote after trust does not run. A hook whose script Paddock cannot spell out, or
//! that names a link, a FIFO or a huge file, cannot be pinned and does not run as a project
//! hook; its trust card says why.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use paddock_guard::{UntrustedFileError, read_untrusted_head};
use paddock_hooks::{Hook, ScriptPath, text_paths};
use paddock_protocol::{AGENT_WORKSPACE_DIR, ProjectSettings};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::trust::{TrustPolicy, TrustStore};

/// Largest file pinned; a hook naming a bigger one does not run as a project hook.
const MAX_SCRIPT_BYTES: u64 = 8 * 1024 * 1024;
/// Most project files one hook may pin.
const MAX_PINNED: usize = 64;
/// How far a script's own references are followed (script -> library -> its library).
const MAX_DEPTH: usize = 3;
/// Endings of files whose text is read for the files it names in turn (and any `#!` file).
const SCRIPT_ENDINGS: [&str; 12] = [
    ".sh", ".bash", ".zsh", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php", ".lua",
];

/// The project files a hook runs or reads as its script, each by content.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScriptPins {
    /// Path under the project folder -> `sha256:<hex>` of its content.
    pub files: BTreeMap<String, String>,
    /// Why what the hook runs cannot be pinned: such a hook never runs as a project hook.
    pub unpinnable: Option<String>,
}

impl ScriptPins {
    /// The pins of `hook`'s files as they are now under `project` (the folder the hook is
    /// told as `$CLAUDE_PROJECT_DIR`; relative paths are tried from it and from its agent
    /// workspace, where hooks may run).
    pub fn scan(hook: &Hook, project: &Path) -> Self {
        let project = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
        let mut scan = Scan {
            workspace: project.join(AGENT_WORKSPACE_DIR),
            project,
            pins: ScriptPins::default(),
            dirs: Vec::new(),
        };
        let scripts = hook.scripts();
        let bases = [scan.project.clone(), scan.workspace.clone()];
        for path in &scripts.paths {
            match path {
                ScriptPath::Project(rel) => scan.visit(&scan.project.join(rel), 0),
                ScriptPath::AsWritten(w) => {
                    for base in &bases {
                        scan.visit(&place(base, w), 0);
                    }
                }
            }
        }
        // `cd .claude/hooks && ./guard.sh`: relative words from every folder the command names.
        for dir in scan.dirs.clone() {
            for path in &scripts.paths {
                if let ScriptPath::AsWritten(w) = path
                    && !w.starts_with('/')
                    && !w.starts_with('~')
                {
                    scan.visit(&dir.join(w), 0);
                }
            }
        }
        if let Some(word) = &scripts.unexpanded
            && (scripts.names_project || !scan.pins.files.is_empty())
        {
            scan.refuse(format!(
                "Paddock cannot tell which project file it runs (`{word}` is only spelled out \
                 when it runs), so it cannot pin it; name the script plainly, like \
                 `sh \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check.sh`"
            ));
        }
        scan.pins
    }

    /// Names any project file (or refers to the project in a way Paddock cannot follow).
    pub fn names_project(&self) -> bool {
        !self.files.is_empty() || self.unpinnable.is_some()
    }

    /// Adds the pins to a hook's trust value (nothing when there are none, so a hook that
    /// names no project file keeps the value it was trusted with before pins existed).
    pub fn add_to(&self, value: &mut Map<String, Value>) {
        if !self.files.is_empty() {
            value.insert("scripts".into(), json!(self.files));
        }
        if let Some(why) = &self.unpinnable {
            value.insert("unpinnable".into(), json!(why));
        }
    }

    /// The pins a trusted value holds.
    pub fn from_value(value: &Value) -> Self {
        let files = value
            .get("scripts")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
                    .collect()
            })
            .unwrap_or_default();
        let unpinnable = value
            .get("unpinnable")
            .and_then(Value::as_str)
            .map(str::to_owned);
        Self { files, unpinnable }
    }

    /// Why a hook trusted with `self` must not run with `now`: `None` when it may.
    pub fn refusal(&self, now: &ScriptPins) -> Option<String> {
        if let Some(why) = &now.unpinnable {
            return Some(why.clone());
        }
        let changed = self
            .files
            .iter()
            .find_map(|(path, digest)| match now.files.get(path) {
                None => Some(format!("`{path}` is gone")),
                Some(d) if d != digest => Some(format!("`{path}` changed")),
                Some(_) => None,
            })
            .or_else(|| {
                now.files
                    .keys()
                    .find(|p| !self.files.contains_key(*p))
                    .map(|p| format!("`{p}` is new"))
            })?;
        Some(format!(
            "{changed} since you trusted this hook; it waits for your trust again \
             (`paddock trust`, or the trust card in the app)"
        ))
    }

    /// The trust card's words: what is pinned, or why it will not run.
    pub fn words(&self) -> Option<String> {
        if let Some(why) = &self.unpinnable {
            return Some(format!("it will not run: {why}"));
        }
        if self.files.is_empty() {
            return None;
        }
        let names: Vec<&str> = self.files.keys().map(String::as_str).take(4).collect();
        let more = self.files.len().saturating_sub(names.len());
        let mut list = names.join(", ");
        if more > 0 {
            list.push_str(&format!(" and {more} more"));
        }
        Some(format!(
            "trust pins {list} as now: a change to it waits for your trust again"
        ))
    }
}

/// The pins each trusted project hook of a run must still match, by trust key.
#[derive(Debug, Clone, Default)]
pub struct HookPins(BTreeMap<String, ScriptPins>);

impl HookPins {
    /// For a run under `policy` of the folder `root` with (trust-applied) `settings`: the
    /// trust record's pins, or, when the user vouched for the folder for this run
    /// (`--trust`), its files as they are now.
    pub fn for_run(
        store: &TrustStore,
        root: &Path,
        policy: TrustPolicy,
        settings: &ProjectSettings,
    ) -> Self {
        match policy {
            TrustPolicy::Assume => Self::scanned(settings, root),
            TrustPolicy::SafeDefaults | TrustPolicy::Refuse => Self::recorded(store, root),
        }
    }

    /// The pins the trust record holds for `root`'s hooks.
    pub fn recorded(store: &TrustStore, root: &Path) -> Self {
        Self(
            store
                .trusted_values(root)
                .into_iter()
                .filter(|(key, _)| key.starts_with("hooks."))
                .map(|(key, value)| (key, ScriptPins::from_value(&value)))
                .collect(),
        )
    }

    /// The pins of `settings`' hooks as their files are now.
    pub fn scanned(settings: &ProjectSettings, root: &Path) -> Self {
        let hooks = super::project_hooks(settings).unwrap_or_default();
        Self(
            hooks
                .hooks()
                .map(|h| (super::trust_key(h), ScriptPins::scan(h, root)))
                .collect(),
        )
    }

    /// What the project hook `hook` was trusted with (nothing pinned when unknown).
    pub fn of(&self, hook: &Hook) -> ScriptPins {
        self.0
            .get(&super::trust_key(hook))
            .cloned()
            .unwrap_or_default()
    }
}

struct Scan {
    project: PathBuf,
    workspace: PathBuf,
    pins: ScriptPins,
    /// Project folders the command names.
    dirs: Vec<PathBuf>,
}

impl Scan {
    fn refuse(&mut self, why: String) {
        self.pins.unpinnable.get_or_insert(why);
    }

    /// Pins `path` when it is a file in the project, and follows what a script names.
    fn visit(&mut self, path: &Path, depth: usize) {
        let path = normal(path);
        let Ok(rel) = path.strip_prefix(&self.project) else {
            return;
        };
        let rel_text = rel.to_string_lossy().into_owned();
        if rel_text.is_empty() || self.pins.files.contains_key(&rel_text) {
            return;
        }
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            return;
        };
        if meta.is_dir() {
            if depth == 0 && !self.dirs.contains(&path) {
                self.dirs.push(path);
            }
            return;
        }
        if self.pins.files.len() >= MAX_PINNED {
            self.refuse(format!(
                "it names more than {MAX_PINNED} project files; Paddock pins at most that many"
            ));
            return;
        }
        // The guard's opening: no final link followed, a FIFO refused without blocking.
        let bytes = match read_untrusted_head(&path, MAX_SCRIPT_BYTES) {
            Ok((bytes, size)) if size <= MAX_SCRIPT_BYTES => bytes,
            Ok(_) => {
                return self.refuse(format!(
                    "`{rel_text}` is over {} MiB; Paddock pins smaller scripts only",
                    MAX_SCRIPT_BYTES / (1024 * 1024)
                ));
            }
            Err(UntrustedFileError::Missing { .. }) => return,
            Err(UntrustedFileError::Symlink { .. }) => {
                return self.refuse(format!(
                    "`{rel_text}` is a symbolic link; Paddock pins only regular files (put \
                     the file itself there)"
                ));
            }
            Err(e) => return self.refuse(format!("`{rel_text}` cannot be pinned: {e}")),
        };
        let digest: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        self.pins
            .files
            .insert(rel_text.clone(), format!("sha256:{digest}"));
        if depth < MAX_DEPTH && is_script(&rel_text, &bytes) {
            let text = String::from_utf8_lossy(&bytes);
            let own = path.parent().map(Path::to_path_buf).unwrap_or_default();
            let bases = [own, self.project.clone(), self.workspace.clone()];
            for named in text_paths(&text) {
                for base in &bases {
                    self.visit(&place(base, &named), depth + 1);
                    // `$(dirname "$0")/lib.sh`, `${CLAUDE_PROJECT_DIR}/x`: the text after
                    // what the script spells out when it runs.
                    if let Some(tail) = named.strip_prefix('/') {
                        self.visit(&base.join(tail), depth + 1);
                    }
                }
            }
        }
    }
}

/// A file whose text may name further files it runs: a script by its ending or its `#!`.
fn is_script(rel: &str, bytes: &[u8]) -> bool {
    bytes.starts_with(b"#!") || SCRIPT_ENDINGS.iter().any(|e| rel.ends_with(e))
}

/// `written` from `base`: `~/x` in the home folder, an absolute path as it is.
fn place(base: &Path, written: &str) -> PathBuf {
    if let Some(rest) = written.strip_prefix("~/")
        && let Some(home) = dirs::home_dir()
    {
        return home.join(rest);
    }
    base.join(written)
}

/// `path` with `.` and `..` taken out by their text (links are not followed).
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use paddock_hooks::HooksConfig;

    use super::*;

    fn hook(command: &str) -> Hook {
        let config = HooksConfig::from_json(&json!({"Stop": [{"hooks": [
            {"type": "command", "command": command}
        ]}]}))
        .unwrap();
        config.hooks().next().unwrap().clone()
    }

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn a_change_a_new_file_and_a_gone_one_each_refuse_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "h/a.sh", "#!/bin/sh\n. ./h/b.sh\n");
        write(root, "h/b.sh", "true\n");
        let h = hook("sh h/a.sh");
        let trusted = ScriptPins::scan(&h, root);
        assert_eq!(
            trusted.files.keys().collect::<Vec<_>>(),
            ["h/a.sh", "h/b.sh"]
        );
        assert_eq!(trusted.refusal(&ScriptPins::scan(&h, root)), None);

        write(root, "h/b.sh", "evil\n");
        let why = trusted.refusal(&ScriptPins::scan(&h, root)).unwrap();
        assert!(why.starts_with("`h/b.sh` changed"), "{why}");
        std::fs::remove_file(root.join("h/b.sh")).unwrap();
        let why = trusted.refusal(&ScriptPins::scan(&h, root)).unwrap();
        assert!(why.starts_with("`h/b.sh` is gone"), "{why}");

        // A file the command names that was not there when trusted (in the agent's folder).
        let h = hook("python3 check.py");
        let trusted = ScriptPins::scan(&h, root);
        assert!(trusted.files.is_empty());
        write(root, ".agent-workspace/check.py", "evil\n");
        let why = trusted.refusal(&ScriptPins::scan(&h, root)).unwrap();
        assert!(
            why.starts_with("`.agent-workspace/check.py` is new"),
            "{why}"
        );
    }

    #[test]
    fn a_folder_the_command_enters_places_its_relative_script() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), ".claude/hooks/guard.sh", "true\n");
        let pins = ScriptPins::scan(&hook("cd .claude/hooks && ./guard.sh"), dir.path());
        assert!(
            pins.files.contains_key(".claude/hooks/guard.sh"),
            "{pins:?}"
        );
    }

    #[test]
    fn scripts_naming_each_other_end_and_the_value_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "a.sh", "sh ./b.sh\n");
        write(dir.path(), "b.sh", "sh ./a.sh\n");
        let pins = ScriptPins::scan(&hook("sh a.sh"), dir.path());
        assert_eq!(pins.files.len(), 2, "{pins:?}");
        let mut value = Map::new();
        pins.add_to(&mut value);
        assert_eq!(ScriptPins::from_value(&Value::Object(value)), pins);
        assert!(pins.words().unwrap().contains("a.sh, b.sh"));
    }
}
