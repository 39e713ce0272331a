//! The floor app under WebDriver, so its memory can be compared with Paddock's project
//! windows (which only WebDriver can open) under the same automation overhead. The library's
//! `Driver` always launches Paddock; this one launches the floor app, with arguments.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use paddock_desktop_e2e::{Result, TestHome, WAIT, spawn_tauri_driver};
use thirtyfour::WebDriver;
use tokio::process::Child;

pub struct FloorDriver {
    child: Option<Child>,
    port: u16,
    app: PathBuf,
}

impl FloorDriver {
    pub async fn start(home: &TestHome, app: &Path, log: &Path) -> Result<Self> {
        let (child, port) = spawn_tauri_driver(home, log).await?;
        Ok(Self {
            child: Some(child),
            port,
            app: app.to_path_buf(),
        })
    }

    /// A session running the floor app with `args`, once its page has loaded.
    pub async fn launch(&self, args: &[&str]) -> Result<WebDriver> {
        let caps = serde_json::json!({
            "browserName": "wry",
            "tauri:options": { "application": self.app.to_string_lossy(), "args": args },
        });
        let serde_json::Value::Object(caps) = caps else {
            return Err("capabilities are not an object".into());
        };
        let url = format!("http://127.0.0.1:{}", self.port);
        let wd = tokio::time::timeout(Duration::from_secs(60), WebDriver::new(url, caps))
            .await
            .map_err(|_| "the WebDriver session did not start within 60 s")??;
        let deadline = Instant::now() + WAIT;
        loop {
            let state = wd.execute("return document.readyState", Vec::new()).await?;
            if state.json() == "complete" {
                return Ok(wd);
            }
            if Instant::now() > deadline {
                return Err("the floor page did not load".into());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// SIGTERM (never SIGKILL: that orphans WebKitWebDriver), then wait.
    pub async fn stop(mut self) -> Result<()> {
        if let Some(mut child) = self.child.take() {
            if let Some(pid) = child.id() {
                crate::procs::terminate(pid)?;
            }
            tokio::time::timeout(Duration::from_secs(10), child.wait())
                .await
                .map_err(|_| "tauri-driver did not exit within 10 s of SIGTERM")??;
        }
        Ok(())
    }
}

impl Drop for FloorDriver {
    fn drop(&mut self) {
        if let Some(pid) = self.child.as_ref().and_then(Child::id) {
            let _ = crate::procs::terminate(pid);
        }
    }
}
