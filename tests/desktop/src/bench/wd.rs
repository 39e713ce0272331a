//! The floor app under WebDriver, so its memory can be compared with Paddock's project
//! windows (which only WebDriver can open) under the same automation overhead. The library's
//! `Driver` always launches Paddock, so this starts its own tauri-driver.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use paddock_desktop_e2e::{Result, TestHome, WAIT};
use thirtyfour::WebDriver;
use tokio::process::{Child, Command};

pub struct FloorDriver {
    child: Option<Child>,
    port: u16,
    app: PathBuf,
}

fn free_port() -> Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

impl FloorDriver {
    pub async fn start(home: &TestHome, app: &Path, log: &Path) -> Result<Self> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        // A file, not a pipe: a stray child holding a pipe open could hang the run.
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
        let driver = Self {
            child: Some(cmd.spawn()?),
            port,
            app: app.to_path_buf(),
        };
        let deadline = Instant::now() + WAIT;
        for p in [port, native_port] {
            while tokio::net::TcpStream::connect(("127.0.0.1", p))
                .await
                .is_err()
            {
                if Instant::now() > deadline {
                    return Err(format!("tauri-driver: nothing listens on {p}").into());
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        Ok(driver)
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
