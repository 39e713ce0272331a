//! Folder trust. A folder's settings may start programs, send the user's key elsewhere and
//! grant tools; none of that happens until the user has seen it and trusted it. The record
//! lives outside every repository (the user config dir), keyed by the folder's real path,
//! with the trusted value of each gated field: a field that changes is pending again.
//! Nothing in the folder takes part in the decision.

mod gated;
mod table;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use paddock_guard::read_untrusted;
use paddock_protocol::{ProjectSettings, TrustItem, TrustReport, TrustState};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use gated::{Gated, gated, gated_at, restrict};
pub use table::{GATED, GatedField, UNGATED};

use crate::RunOptions;

/// Overrides the folder the trust record lives in (tests, portable installs).
pub const CONFIG_DIR_ENV: &str = "PADDOCK_CONFIG_DIR";
/// The record's file name in that folder.
pub const TRUST_FILE: &str = "trust.json";
/// The record format this Paddock writes.
const TRUST_VERSION: u32 = 1;
/// Largest record read.
const MAX_TRUST_BYTES: u64 = 16 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    #[error("no user config directory found; set {CONFIG_DIR_ENV}")]
    NoConfigDir,
    #[error(
        "the trust record {path} cannot be read ({problem}); until it is fixed or moved away, \
         no folder counts as trusted and none can be trusted"
    )]
    Damaged { path: PathBuf, problem: String },
    #[error("cannot write the trust record {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TrustFile {
    version: u32,
    #[serde(default)]
    folders: BTreeMap<String, FolderRecord>,
}

#[derive(Debug, Default, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FolderRecord {
    /// Gated field -> the value the user trusted.
    #[serde(default)]
    trusted: BTreeMap<String, Value>,
    /// Digest of the pending fields the user chose to go without.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    declined: Option<String>,
    /// Saved project prompt (file name) -> SHA-256 of the content the user saw and sent.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    prompts: BTreeMap<String, String>,
    updated: String,
}

/// Where trust is recorded.
#[derive(Debug, Clone)]
pub struct TrustStore {
    path: PathBuf,
}

/// How a run treats settings the user has not trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrustPolicy {
    /// They do not apply; Paddock's safe defaults do (the app, doctor).
    SafeDefaults,
    /// They are an error that names them (headless runs).
    Refuse,
    /// The user vouched for the folder for this run only (`--trust`).
    Assume,
}

/// A folder's settings weighed against its record.
#[derive(Debug, Clone)]
pub struct Assessment {
    pub report: TrustReport,
    trusted: BTreeSet<String>,
    pending_digest: String,
}

impl Assessment {
    /// The settings as they may apply: every pending field back to its safe default.
    pub fn apply(&self, settings: &ProjectSettings) -> ProjectSettings {
        restrict(settings, |key| self.trusted.contains(key))
    }

    /// The pending items a run with `options` would use: a flag that sets a field itself
    /// (provider, base URL, preset) makes the file's value moot.
    pub fn pending_for(&self, options: &RunOptions) -> Vec<TrustItem> {
        self.report
            .pending
            .iter()
            .filter(|i| !table::field_of(&i.key).is_some_and(|f| f.set_by(options)))
            .cloned()
            .collect()
    }
}

impl TrustStore {
    pub fn new(path: PathBuf) -> Self {
        Self { path }
    }

    /// `$PADDOCK_CONFIG_DIR/trust.json`, else the platform's config dir (XDG on Linux).
    pub fn open_default() -> Result<Self, TrustError> {
        Ok(Self::new(config_dir()?.join(TRUST_FILE)))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The user's config folder this record lives in (their saved prompts live there too).
    pub fn config_dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }

    /// The folder's saved prompts the user confirmed: file name -> digest of what they saw.
    /// A damaged record confirms nothing.
    pub fn confirmed_prompts(&self, root: &Path) -> BTreeMap<String, String> {
        self.load()
            .ok()
            .and_then(|mut file| file.folders.remove(&key(root)))
            .map(|record| record.prompts)
            .unwrap_or_default()
    }

    /// The values the user trusted for the folder at `root`, by gated key (a hook's carry
    /// the pins of its scripts). A damaged record trusts nothing.
    pub fn trusted_values(&self, root: &Path) -> BTreeMap<String, Value> {
        self.load()
            .ok()
            .and_then(|mut file| file.folders.remove(&key(root)))
            .map(|record| record.trusted)
            .unwrap_or_default()
    }

    /// Records that the user saw the saved prompt `file` with content digest `digest` and
    /// chose to send it: asked again only once it changes.
    pub fn confirm_prompt(&self, root: &Path, file: &str, digest: &str) -> Result<(), TrustError> {
        self.update(root, |record| {
            record.prompts.insert(file.to_owned(), digest.to_owned());
        })
    }

    fn load(&self) -> Result<TrustFile, TrustError> {
        let damaged = |problem: String| TrustError::Damaged {
            path: self.path.clone(),
            problem,
        };
        let text = match read_untrusted(&self.path, MAX_TRUST_BYTES) {
            Ok(text) => text,
            Err(e) if e.is_missing() => return Ok(TrustFile::default()),
            Err(e) => return Err(damaged(e.to_string())),
        };
        let file: TrustFile = serde_json::from_str(&text).map_err(|e| damaged(e.to_string()))?;
        if file.version != TRUST_VERSION {
            return Err(damaged(format!(
                "version {}, this Paddock reads {TRUST_VERSION}",
                file.version
            )));
        }
        Ok(file)
    }

    /// What `settings` (of the folder at the real path `root`) would do, trusted or not.
    pub fn assess(&self, root: &Path, settings: &ProjectSettings) -> Assessment {
        let (record, error) = match self.load() {
            Ok(mut file) => (file.folders.remove(&key(root)).unwrap_or_default(), None),
            Err(e) => (FolderRecord::default(), Some(e.to_string())),
        };
        let mut report = TrustReport {
            folder: key(root),
            error,
            ..TrustReport::default()
        };
        let mut trusted = BTreeSet::new();
        let mut pending_values = Vec::new();
        for g in gated_at(settings, root) {
            let state = match record.trusted.get(&g.key) {
                Some(v) if *v == g.value => TrustState::Trusted,
                Some(was) => TrustState::Changed {
                    was: describe_was(was),
                },
                None => TrustState::New,
            };
            let item = TrustItem {
                key: g.key.clone(),
                what: g.what.clone(),
                state,
            };
            if item.state == TrustState::Trusted {
                trusted.insert(g.key);
                report.trusted.push(item);
            } else {
                pending_values.push((g.key, g.value));
                report.pending.push(item);
            }
        }
        let pending_digest = gated::digest_of(pending_values.iter().map(|(k, v)| (k.as_str(), v)));
        report.declined = report.needs_trust() && record.declined.as_ref() == Some(&pending_digest);
        Assessment {
            report,
            trusted,
            pending_digest,
        }
    }

    /// Trusts every gated field the settings set now.
    pub fn trust(&self, root: &Path, settings: &ProjectSettings) -> Result<(), TrustError> {
        self.update(root, |record| {
            record.trusted = gated_at(settings, root)
                .into_iter()
                .map(|g| (g.key, g.value))
                .collect();
            record.declined = None;
        })
    }

    /// The user changed the settings themselves (in the app): the fields they changed are
    /// theirs, and trusted; every other field keeps its state.
    pub fn trust_changes(
        &self,
        root: &Path,
        before: &ProjectSettings,
        after: &ProjectSettings,
    ) -> Result<(), TrustError> {
        let old: BTreeMap<String, Value> = gated_at(before, root)
            .into_iter()
            .map(|g| (g.key, g.value))
            .collect();
        let changed: Vec<Gated> = gated_at(after, root)
            .into_iter()
            .filter(|g| old.get(&g.key) != Some(&g.value))
            .collect();
        if changed.is_empty() {
            return Ok(());
        }
        self.update(root, |record| {
            for g in changed {
                record.trusted.insert(g.key, g.value);
            }
        })
    }

    /// The user opened the folder without its pending fields: not asked again until they
    /// change.
    pub fn decline(&self, root: &Path, settings: &ProjectSettings) -> Result<(), TrustError> {
        let digest = self.assess(root, settings).pending_digest;
        self.update(root, |record| record.declined = Some(digest))
    }

    /// Forgets the folder: everything is pending again.
    pub fn revoke(&self, root: &Path) -> Result<bool, TrustError> {
        let mut file = self.load()?;
        let removed = file.folders.remove(&key(root)).is_some();
        if removed {
            self.save(&file)?;
        }
        Ok(removed)
    }

    /// Folders with a trust record, and how many fields each has trusted.
    pub fn list(&self) -> Result<Vec<(String, usize)>, TrustError> {
        Ok(self
            .load()?
            .folders
            .into_iter()
            .map(|(folder, r)| (folder, r.trusted.len()))
            .collect())
    }

    fn update(
        &self,
        root: &Path,
        change: impl FnOnce(&mut FolderRecord),
    ) -> Result<(), TrustError> {
        let mut file = self.load()?;
        file.version = TRUST_VERSION;
        let record = file.folders.entry(key(root)).or_default();
        change(record);
        record.updated =
            humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
        self.save(&file)
    }

    /// Writes the record atomically, private to the user (0600 in a 0700 folder).
    fn save(&self, file: &TrustFile) -> Result<(), TrustError> {
        let write_err = |source| TrustError::Write {
            path: self.path.clone(),
            source,
        };
        let dir = self.path.parent().unwrap_or(Path::new("."));
        create_private_dir(dir).map_err(write_err)?;
        let mut text =
            serde_json::to_string_pretty(file).map_err(|e| write_err(std::io::Error::other(e)))?;
        text.push('\n');
        let tmp = dir.join(format!(".{TRUST_FILE}.tmp-{}", std::process::id()));
        write_private(&tmp, text.as_bytes()).map_err(write_err)?;
        std::fs::rename(&tmp, &self.path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            write_err(e)
        })
    }
}

/// `$PADDOCK_CONFIG_DIR`, else `paddock` in the platform's config dir (XDG on Linux).
pub fn config_dir() -> Result<PathBuf, TrustError> {
    match std::env::var_os(CONFIG_DIR_ENV).filter(|d| !d.is_empty()) {
        Some(dir) => Ok(PathBuf::from(dir)),
        None => dirs::config_dir()
            .map(|d| d.join("paddock"))
            .ok_or(TrustError::NoConfigDir),
    }
}

/// Trust is keyed by the folder's real path.
fn key(root: &Path) -> String {
    std::fs::canonicalize(root)
        .unwrap_or_else(|_| root.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

/// A trusted value as words, for "changed (was …)".
fn describe_was(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => {
            let text = other.to_string();
            crate::one_line(&text, 120)
        }
    }
}

pub(crate) fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
    }
    #[cfg(not(unix))]
    std::fs::create_dir_all(dir)
}

pub(crate) fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}
