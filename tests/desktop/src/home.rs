//! A throwaway home for one test: HOME, the XDG folders and Paddock's data dir all inside a
//! temporary folder, so every file the app writes can be found (and searched for secrets).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use tempfile::TempDir;
use tokio::process::Command;

use crate::Result;

pub struct TestHome {
    dir: TempDir,
    /// Keep WebKit's GPU compositing on (needed for WebDriver screenshots) and log at debug
    /// level; off: as users run the app.
    test_mode: bool,
    /// Folders put before PATH for the app (stub programs such as `xdg-open`).
    path_prefix: Vec<PathBuf>,
    /// Further variables for the app (`with_env`).
    extra: Vec<(&'static str, OsString)>,
}

impl TestHome {
    pub fn new() -> Result<Self> {
        let dir = tempfile::Builder::new().prefix("paddock-e2e-").tempdir()?;
        for sub in [
            ".config",
            ".local/share",
            ".cache",
            ".local/state",
            "data",
            "projects",
        ] {
            std::fs::create_dir_all(dir.path().join(sub))?;
        }
        Ok(Self {
            dir,
            test_mode: true,
            path_prefix: Vec::new(),
            extra: Vec::new(),
        })
    }

    /// Runs the app as users get it: software rendering on Linux, the default log level.
    /// WebDriver screenshots hang in that mode, so the benchmark and few tests use it.
    pub fn as_users_run(mut self) -> Self {
        self.test_mode = false;
        self
    }

    /// Sets `name` in the app's environment (an update server's address).
    pub fn with_env(mut self, name: &'static str, value: impl Into<OsString>) -> Self {
        self.extra.push((name, value.into()));
        self
    }

    /// Puts a stub `name` before PATH that appends its arguments, one line per call, to the
    /// returned file (how a test sees what the app asked the system to open).
    pub fn stub_program(&mut self, name: &str) -> Result<PathBuf> {
        use std::os::unix::fs::PermissionsExt;
        let bin = self.dir.path().join("stub-bin");
        std::fs::create_dir_all(&bin)?;
        let record = self.dir.path().join(format!("{name}.calls"));
        let script = bin.join(name);
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{}'\n",
                record.display()
            ),
        )?;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))?;
        if !self.path_prefix.contains(&bin) {
            self.path_prefix.push(bin);
        }
        Ok(record)
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Paddock's data dir (sessions, recent projects).
    pub fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// A new project folder of the user's own with `settings` as its
    /// `.paddock/settings.json` (when given), trusted as the trust screen would record it.
    pub fn project(&self, name: &str, settings: Option<&serde_json::Value>) -> Result<PathBuf> {
        let root = self.untrusted_project(name, settings)?;
        if settings.is_some() {
            let written = paddock_host::settings::load(&root)?;
            self.trust_store().trust(&root, &written)?;
        }
        Ok(root)
    }

    /// A project folder as a cloned repository brings it: nobody trusted its settings.
    pub fn untrusted_project(
        &self,
        name: &str,
        settings: Option<&serde_json::Value>,
    ) -> Result<PathBuf> {
        let root = self.dir.path().join("projects").join(name);
        std::fs::create_dir_all(&root)?;
        if let Some(s) = settings {
            std::fs::create_dir_all(root.join(".paddock"))?;
            std::fs::write(
                root.join(".paddock/settings.json"),
                serde_json::to_string_pretty(s)?,
            )?;
        }
        Ok(root.canonicalize()?)
    }

    /// The trust record the app in this home reads (`$XDG_CONFIG_HOME/paddock`).
    pub fn trust_store(&self) -> paddock_host::trust::TrustStore {
        let dir = self.dir.path().join(".config/paddock");
        paddock_host::trust::TrustStore::new(dir.join(paddock_host::trust::TRUST_FILE))
    }

    /// Points the command (tauri-driver, and through it the app) at this home. The display
    /// and the D-Bus session (the keychain) are inherited.
    pub fn apply(&self, cmd: &mut Command) {
        for (name, value) in self.env() {
            match value {
                Some(v) => cmd.env(name, v),
                None => cmd.env_remove(name),
            };
        }
    }

    /// The environment `apply` sets (`Some`) and removes (`None`).
    pub fn env(&self) -> Vec<(&'static str, Option<OsString>)> {
        let home = self.dir.path();
        let path = |p: PathBuf| Some(p.into_os_string());
        let mut env = vec![
            // WebKitWebDriver's screenshots hang when WebKitGTK runs without compositing
            // (the app's default on Linux, see src-tauri/src/main.rs).
            (
                "PADDOCK_GPU_COMPOSITING",
                self.test_mode.then(|| "1".into()),
            ),
            ("HOME", path(home.to_path_buf())),
            ("XDG_CONFIG_HOME", path(home.join(".config"))),
            ("XDG_DATA_HOME", path(home.join(".local/share"))),
            ("XDG_CACHE_HOME", path(home.join(".cache"))),
            ("XDG_STATE_HOME", path(home.join(".local/state"))),
            ("PADDOCK_DATA_DIR", path(self.data_dir())),
            ("PADDOCK_LOG", self.test_mode.then(|| "debug".into())),
            ("PADDOCK_CONFIG_DIR", None),
            // Keys must come from the keychain in these tests, never from the environment.
            ("ANTHROPIC_API_KEY", None),
            ("OPENAI_API_KEY", None),
            ("PADDOCK_OPENAI_COMPAT_API_KEY", None),
        ];
        env.extend(self.extra.iter().map(|(k, v)| (*k, Some(v.clone()))));
        if !self.path_prefix.is_empty() {
            let mut paths = self.path_prefix.clone();
            paths.extend(std::env::split_paths(
                &std::env::var_os("PATH").unwrap_or_default(),
            ));
            if let Ok(joined) = std::env::join_paths(paths) {
                env.push(("PATH", Some(joined)));
            }
        }
        env
    }

    /// Keeps the folder after this value is gone (for a script that runs the app in it).
    pub fn keep(self) -> PathBuf {
        self.dir.keep()
    }

    /// Every file under the home whose bytes contain `needle` (logs, data, config, caches,
    /// WebKit storage, projects).
    pub fn files_containing(&self, needle: &str) -> Result<Vec<PathBuf>> {
        let mut hits = Vec::new();
        let mut stack = vec![self.dir.path().to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir)? {
                let entry = entry?;
                let kind = entry.file_type()?;
                if kind.is_dir() {
                    stack.push(entry.path());
                } else if kind.is_file() {
                    let bytes = std::fs::read(entry.path()).unwrap_or_default();
                    if bytes.windows(needle.len()).any(|w| w == needle.as_bytes()) {
                        hits.push(entry.path());
                    }
                }
            }
        }
        Ok(hits)
    }

    /// How many files there are under the home (to show the search covered something).
    pub fn file_count(&self) -> usize {
        let mut n = 0;
        let mut stack = vec![self.dir.path().to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                match entry.file_type() {
                    Ok(t) if t.is_dir() => stack.push(entry.path()),
                    Ok(t) if t.is_file() => n += 1,
                    _ => {}
                }
            }
        }
        n
    }
}
