//! What `auto` tool calling learned of each OpenAI-compatible server and model, kept across
//! runs in Paddock's data folder: one that refused the `tools` parameter, or whose model's
//! calls the server left in the text, is asked with the tools described in the prompt from
//! the next run's first request (no refused request first). `toolCalling` set to `native`
//! or `prompted` still decides alone.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The file, in Paddock's data folder.
pub const TOOL_MODES_FILE: &str = "tool-modes.json";
/// Bytes of the file read at most; a larger one is ignored (and rewritten).
const MAX_FILE_BYTES: u64 = 256 * 1024;
/// Servers remembered at most (the oldest go first).
const MAX_ENTRIES: usize = 200;

#[derive(Debug, Default, Serialize, Deserialize)]
struct Learned {
    #[serde(default)]
    servers: BTreeMap<String, Entry>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    /// Always `prompted` today: the only mode auto mode learns.
    mode: String,
    why: String,
    /// When, as the system clock said (RFC 3339, seconds).
    learned: String,
}

fn key(base_url: &str, model: &str) -> String {
    format!("{} {}", base_url.trim_end_matches('/'), model.trim())
}

/// The file where this user's data is (none: nothing is remembered).
pub(crate) fn default_file() -> Option<PathBuf> {
    paddock_session::data_dir()
        .ok()
        .map(|d| d.join(TOOL_MODES_FILE))
}

fn read(file: &Path) -> Learned {
    match paddock_guard::read_regular_text(file, MAX_FILE_BYTES, paddock_guard::Links::Refuse) {
        Ok(text) => serde_json::from_str(&text).unwrap_or_else(|e| {
            tracing::warn!(
                "{} is not usable, so nothing is remembered from it: {e}",
                file.display()
            );
            Learned::default()
        }),
        Err(_) => Learned::default(),
    }
}

/// Why auto mode turned `model` on `base_url` prompted in an earlier run, with when.
pub(crate) fn remembered(file: &Path, base_url: &str, model: &str) -> Option<String> {
    let entry = read(file).servers.remove(&key(base_url, model))?;
    (entry.mode == "prompted").then(|| format!("{} (learned {})", entry.why, entry.learned))
}

/// Keeps that auto mode turned `model` on `base_url` prompted, for `why`. Failures are
/// logged: the next run asks natively first again.
pub(crate) fn remember(file: &Path, base_url: &str, model: &str, why: &str) {
    let mut learned = read(file);
    let learned_at = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    learned.servers.insert(
        key(base_url, model),
        Entry {
            mode: "prompted".to_owned(),
            why: why.to_owned(),
            learned: learned_at,
        },
    );
    while learned.servers.len() > MAX_ENTRIES {
        let oldest = learned
            .servers
            .iter()
            .min_by(|a, b| a.1.learned.cmp(&b.1.learned))
            .map(|(k, _)| k.clone());
        match oldest {
            Some(k) => learned.servers.remove(&k),
            None => break,
        };
    }
    match write(file, &learned) {
        Ok(()) => tracing::info!(
            server = base_url,
            model,
            "tool calling: prompted from now on ({why})"
        ),
        Err(e) => tracing::warn!("{} could not be written: {e}", file.display()),
    }
}

/// Forgets what auto mode learned of `model` on `base_url` (a probe saw a native call).
pub(crate) fn forget(file: &Path, base_url: &str, model: &str) {
    let mut learned = read(file);
    if learned.servers.remove(&key(base_url, model)).is_none() {
        return;
    }
    if let Err(e) = write(file, &learned) {
        tracing::warn!("{} could not be written: {e}", file.display());
    }
}

fn write(file: &Path, learned: &Learned) -> std::io::Result<()> {
    let bytes = serde_json::to_vec_pretty(learned).map_err(std::io::Error::other)?;
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = file.with_extension("json.tmp");
    crate::trust::write_private(&tmp, &bytes)?;
    std::fs::rename(&tmp, file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_learned_mode_is_remembered_per_server_and_model() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("data").join(TOOL_MODES_FILE);
        assert_eq!(remembered(&file, "http://127.0.0.1:8080/v1", "m"), None);
        remember(
            &file,
            "http://127.0.0.1:8080/v1/",
            "m",
            "the server refused",
        );
        let said = remembered(&file, "http://127.0.0.1:8080/v1", "m").unwrap();
        assert!(said.starts_with("the server refused (learned 20"), "{said}");
        assert_eq!(remembered(&file, "http://127.0.0.1:8080/v1", "other"), None);
        assert_eq!(remembered(&file, "http://127.0.0.1:9090/v1", "m"), None);
        forget(&file, "http://127.0.0.1:8080/v1", "m");
        assert_eq!(remembered(&file, "http://127.0.0.1:8080/v1", "m"), None);
    }

    #[test]
    fn a_broken_file_remembers_nothing_and_is_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(TOOL_MODES_FILE);
        std::fs::write(&file, "{not json").unwrap();
        assert_eq!(remembered(&file, "u", "m"), None);
        remember(&file, "u", "m", "why");
        assert!(remembered(&file, "u", "m").is_some());
    }
}
