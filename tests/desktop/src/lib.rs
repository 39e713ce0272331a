//! Drives the real Paddock app over WebDriver: `tauri-driver` (which runs WebKitWebDriver,
//! which launches the app) in a throwaway home, one WebDriver session per app launch.
//!
//! Needs a display (Xvfb), a D-Bus session with an unlocked Secret Service, `tauri-driver`
//! on PATH and a built app: `scripts/desktop-e2e.sh` provides all of that.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use thirtyfour::prelude::*;
use tokio::process::{Child, Command};

pub mod axe;
pub mod home;
pub mod proc_tree;
pub mod serve;
pub mod transcript;

pub use home::TestHome;

pub type Error = Box<dyn std::error::Error + Send + Sync>;
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// How long a UI condition may take before the test fails.
pub const WAIT: Duration = Duration::from_secs(20);
const POLL: Duration = Duration::from_millis(100);

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The app binary: `PADDOCK_APP`, else the debug build.
pub fn app_binary() -> PathBuf {
    std::env::var_os("PADDOCK_APP")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target/debug/paddock-desktop"))
}

/// Where screenshots and driver logs go (gitignored).
pub fn artifacts_dir() -> PathBuf {
    std::env::var_os("PADDOCK_ARTIFACTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("tests/artifacts"))
}

/// A free TCP port on loopback (the OS picks; released at once).
fn free_port() -> Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// A `tauri-driver` process. Stop it with [`Driver::stop`] (SIGTERM); dropping it sends
/// SIGTERM too. Never SIGKILL: that orphans WebKitWebDriver.
pub struct Driver {
    child: Option<Child>,
    port: u16,
    app: PathBuf,
    artifacts: PathBuf,
}

impl Driver {
    /// Starts tauri-driver for Paddock (the built app, see [`app_binary`]) with the home's
    /// environment (inherited by the app) and waits until it accepts connections.
    pub async fn start(home: &TestHome, name: &str) -> Result<Self> {
        let app = app_binary();
        if !app.is_file() {
            return Err(format!(
                "no app at {}: build it first (cargo build -p paddock-desktop)",
                app.display()
            )
            .into());
        }
        Self::start_for(home, name, app).await
    }

    /// The same for another app (the benchmark's floor app).
    pub async fn start_for(home: &TestHome, name: &str, app: PathBuf) -> Result<Self> {
        let artifacts = artifacts_dir().join(name);
        std::fs::create_dir_all(&artifacts)?;
        let log = artifacts.join("tauri-driver.log");
        let (child, port) = spawn_tauri_driver(home, &log).await?;
        Ok(Self {
            child: Some(child),
            port,
            app,
            artifacts,
        })
    }

    fn pid(&self) -> Result<u32> {
        Ok(self
            .child
            .as_ref()
            .and_then(Child::id)
            .ok_or("tauri-driver is not running")?)
    }

    /// How many WebKit web processes run below tauri-driver (the app's, as it runs one app).
    pub fn web_processes(&self) -> Result<usize> {
        proc_tree::count_named(self.pid()?, "WebKitWebProces")
    }

    /// `var` in each web process's environment (None where it is unset).
    pub fn web_process_env(&self, var: &str) -> Result<Vec<Option<String>>> {
        proc_tree::env_of_named(self.pid()?, "WebKitWebProces", var)
    }

    /// The Mesa/LLVM libraries mapped into the running app's own process.
    pub fn app_mesa_libraries(&self) -> Result<Vec<String>> {
        let app =
            proc_tree::find_running(self.pid()?, &self.app)?.ok_or("the app is not running")?;
        Ok(proc_tree::mesa_libraries(app)?.0)
    }

    /// Launches the app in a new WebDriver session.
    pub async fn launch(&self) -> Result<App> {
        Ok(App {
            wd: self.session(&[]).await?,
            artifacts: self.artifacts.clone(),
        })
    }

    /// A new WebDriver session running the app with `args`.
    pub async fn session(&self, args: &[&str]) -> Result<WebDriver> {
        let caps = serde_json::json!({
            "browserName": "wry",
            "tauri:options": { "application": self.app.to_string_lossy(), "args": args },
        });
        let serde_json::Value::Object(caps) = caps else {
            return Err("capabilities are not an object".into());
        };
        let url = format!("http://127.0.0.1:{}", self.port);
        Ok(
            tokio::time::timeout(Duration::from_secs(60), WebDriver::new(url, caps))
                .await
                .map_err(|_| "the WebDriver session did not start within 60 s")??,
        )
    }

    /// SIGTERM, then wait (bounded) for the driver to exit.
    pub async fn stop(mut self) -> Result<()> {
        if let Some(mut child) = self.child.take() {
            terminate(&child);
            if tokio::time::timeout(Duration::from_secs(10), child.wait())
                .await
                .is_err()
            {
                return Err("tauri-driver did not exit within 10 s of SIGTERM".into());
            }
        }
        Ok(())
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        if let Some(child) = &self.child {
            terminate(child);
        }
    }
}

fn terminate(child: &Child) {
    if let Some(pid) = child.id() {
        let _ = proc_tree::terminate(pid);
    }
}

/// Starts tauri-driver with the home's environment (inherited by the app it launches), its
/// output in `log`, and waits until it and its WebKitWebDriver accept connections. Returns
/// the process and its WebDriver port.
async fn spawn_tauri_driver(home: &TestHome, log: &Path) -> Result<(Child, u16)> {
    // The workspace's reqwest has rustls without a built-in crypto provider (Paddock's own
    // clients install ring): so must the WebDriver client's.
    let _ = rustls::crypto::ring::default_provider().install_default();
    // A file, not a pipe: a pipe held open by a stray child could hang the test run.
    let log = std::fs::File::create(log)?;
    let (port, native_port) = (free_port()?, free_port()?);
    let mut cmd = Command::new("tauri-driver");
    cmd.arg("--port")
        .arg(port.to_string())
        .arg("--native-port")
        .arg(native_port.to_string())
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log);
    home.apply(&mut cmd);
    let mut child = cmd.spawn().map_err(|e| {
        format!("cannot start tauri-driver (cargo install tauri-driver --locked): {e}")
    })?;
    // Both tauri-driver and the WebKitWebDriver it starts must listen before a session
    // request, or tauri-driver fails the request.
    let deadline = Instant::now() + WAIT;
    for p in [port, native_port] {
        while tokio::net::TcpStream::connect(("127.0.0.1", p))
            .await
            .is_err()
        {
            if Instant::now() > deadline {
                terminate(&child);
                let _ = child.wait().await;
                return Err(format!("tauri-driver: nothing listens on {p} within {WAIT:?}").into());
            }
            tokio::time::sleep(POLL).await;
        }
    }
    Ok((child, port))
}

/// One launch of the app, driven over WebDriver.
pub struct App {
    pub wd: WebDriver,
    artifacts: PathBuf,
}

/// The `.paddock/settings.json` of the benchmark's projects: an OpenAI-compatible model at
/// `base_url` (`IDLE_MODEL_URL` for a project that stays idle).
pub fn bench_settings(base_url: &str) -> serde_json::Value {
    serde_json::json!({"version": 1, "provider": "openai-compatible",
        "baseUrl": base_url, "model": "fake-model", "preset": "readonly"})
}

/// Where nothing listens: a project with this model stays idle.
pub const IDLE_MODEL_URL: &str = "http://127.0.0.1:9/v1";

/// `[data-testid="id"]` plus optional attribute filters.
pub fn testid(id: &str) -> String {
    format!("[data-testid=\"{id}\"]")
}

impl App {
    /// The first element matching `css` that is displayed, waiting up to [`WAIT`].
    pub async fn wait_for(&self, css: &str) -> Result<WebElement> {
        self.wait_for_within(css, WAIT).await
    }

    pub async fn wait_for_within(&self, css: &str, limit: Duration) -> Result<WebElement> {
        let deadline = Instant::now() + limit;
        loop {
            for e in self.wd.find_all(By::Css(css)).await.unwrap_or_default() {
                if e.is_displayed().await.unwrap_or(false) {
                    return Ok(e);
                }
            }
            if Instant::now() > deadline {
                let shot = self.screenshot("timeout").await.ok();
                return Err(format!(
                    "nothing matched {css} within {limit:?} (screenshot: {shot:?})"
                )
                .into());
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Waits until `check` holds, polling; `what` names it in the failure.
    pub async fn wait_until<F, Fut>(&self, what: &str, mut check: F) -> Result<()>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<bool>>,
    {
        let deadline = Instant::now() + WAIT;
        loop {
            if check().await.unwrap_or(false) {
                return Ok(());
            }
            if Instant::now() > deadline {
                let shot = self.screenshot("timeout").await.ok();
                return Err(
                    format!("{what}: not true within {WAIT:?} (screenshot: {shot:?})").into(),
                );
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// How many elements match `css` right now.
    pub async fn count(&self, css: &str) -> Result<usize> {
        Ok(self.wd.find_all(By::Css(css)).await?.len())
    }

    /// Clicks the element once it is displayed and enabled (a click on a disabled button
    /// would silently do nothing).
    pub async fn click(&self, css: &str) -> Result<()> {
        let e = self.wait_for(css).await?;
        self.wait_until(&format!("{css} enabled"), || async {
            Ok(e.is_enabled().await?)
        })
        .await?;
        e.scroll_into_view().await?;
        e.click().await?;
        Ok(())
    }

    /// Clicks what closes its own window (the picker, once it has opened a project): the
    /// click's reply can find that window gone, which is no error here.
    pub async fn click_closing(&self, css: &str) -> Result<()> {
        match self.click(css).await {
            Err(e)
                if e.downcast_ref::<WebDriverError>().is_some_and(|e| {
                    matches!(
                        e.as_inner(),
                        thirtyfour::error::WebDriverErrorInner::NoSuchWindow(_)
                    )
                }) =>
            {
                Ok(())
            }
            other => other,
        }
    }

    /// Clears an input and types `text` into it.
    pub async fn type_into(&self, css: &str, text: &str) -> Result<()> {
        let e = self.wait_for(css).await?;
        e.clear().await?;
        e.send_keys(text).await?;
        Ok(())
    }

    /// Picks an option of a `<select>` by value (firing the change event like a user would).
    pub async fn select(&self, css: &str, value: &str) -> Result<()> {
        let e = self.wait_for(css).await?;
        let option = e
            .find(By::Css(format!("option[value=\"{value}\"]")))
            .await
            .map_err(|err| format!("{css} has no option {value}: {err}"))?;
        option.click().await?;
        let chosen = e.prop("value").await?;
        if chosen.as_deref() != Some(value) {
            return Err(format!("{css}: selected {chosen:?}, wanted {value}").into());
        }
        Ok(())
    }

    /// Switches to the window whose URL contains `needle` (project windows carry
    /// `?project=`), waiting for it to open.
    pub async fn switch_to_window_with(&self, needle: &str) -> Result<()> {
        self.switch_to_window_where(needle, |url| url.contains(needle))
            .await
    }

    /// Switches to the window whose URL passes `wanted`, waiting for it to open; `what`
    /// names it in the error.
    pub async fn switch_to_window_where(
        &self,
        what: &str,
        wanted: impl Fn(&str) -> bool,
    ) -> Result<()> {
        let deadline = Instant::now() + WAIT;
        loop {
            for handle in self.wd.windows().await? {
                // A window may close between the listing and the switch (the picker
                // closes itself once it has opened a project).
                if self.wd.switch_to_window(handle).await.is_err() {
                    continue;
                }
                match self.wd.current_url().await {
                    Ok(url) if wanted(url.as_str()) => return Ok(()),
                    _ => {}
                }
            }
            if Instant::now() > deadline {
                return Err(format!("no window with {what} in its URL within {WAIT:?}").into());
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Saves a screenshot of the current window after two animation frames (so it shows
    /// what was just rendered); returns its path.
    pub async fn screenshot(&self, name: &str) -> Result<PathBuf> {
        let _ = self
            .wd
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 requestAnimationFrame(() => requestAnimationFrame(() => done(true)));",
                Vec::new(),
            )
            .await;
        let path = self.artifacts.join(format!("{name}.png"));
        std::fs::write(&path, self.wd.screenshot_as_png().await?)?;
        Ok(path)
    }

    /// Ends the session, which closes the app.
    pub async fn quit(self) -> Result<()> {
        tokio::time::timeout(Duration::from_secs(20), self.wd.quit())
            .await
            .map_err(|_| "the WebDriver session did not end within 20 s")??;
        Ok(())
    }
}
