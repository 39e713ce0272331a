//! Launches without WebDriver (automation adds its own set-up and memory): the floor app,
//! which prints when its page loaded, and Paddock, which logs it.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use paddock_desktop_e2e::proc_tree::terminate;
use paddock_desktop_e2e::{Result, TestHome};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// A running app and how long it took from spawn to its main page's load event.
pub struct Launched {
    child: Child,
    pub pid: u32,
    pub loaded_ms: f64,
}

impl Launched {
    /// SIGTERM, then wait (bounded) for the exit.
    pub async fn stop(mut self) -> Result<()> {
        terminate(self.pid)?;
        if tokio::time::timeout(Duration::from_secs(20), self.child.wait())
            .await
            .is_err()
        {
            self.child.start_kill()?;
            return Err(format!("pid {} did not exit within 20 s of SIGTERM", self.pid).into());
        }
        Ok(())
    }
}

fn epoch_ms(at: SystemTime) -> Result<f64> {
    Ok(at.duration_since(UNIX_EPOCH)?.as_secs_f64() * 1000.0)
}

/// The floor app: reads its `page loaded main <epoch ms>` line from stdout.
pub async fn floor(home: &TestHome, binary: &Path, args: &[&str]) -> Result<Launched> {
    let mut cmd = Command::new(binary);
    home.apply(&mut cmd);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    let spawned = epoch_ms(SystemTime::now())?;
    let mut child = cmd.spawn()?;
    let pid = child.id().ok_or("the floor app exited at once")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut lines = BufReader::new(stdout).lines();
    let loaded = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(line) = lines.next_line().await? {
            if let Some(at) = line.strip_prefix("page loaded main ") {
                return Ok::<f64, paddock_desktop_e2e::Error>(at.trim().parse()?);
            }
        }
        Err("the floor app closed stdout before its page loaded".into())
    })
    .await
    .map_err(|_| "the floor app printed no 'page loaded main' within 30 s")??;
    // Keep reading so later lines (other windows) never block it on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Ok(Launched {
        child,
        pid,
        loaded_ms: loaded - spawned,
    })
}

/// Paddock: polls its log for the first "page loaded" of the main window after the spawn
/// (the line's own timestamp counts, not when it was seen).
pub async fn paddock(home: &TestHome, binary: &Path) -> Result<Launched> {
    let mut cmd = Command::new(binary);
    home.apply(&mut cmd);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    let spawned = SystemTime::now();
    let child = cmd.spawn()?;
    let pid = child.id().ok_or("Paddock exited at once")?;
    let logs = home.path().join(".local/share/dev.paddock.app/logs");
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut launched = Launched {
        child,
        pid,
        loaded_ms: 0.0,
    };
    loop {
        if let Some(at) = page_loaded_after(&logs, spawned) {
            launched.loaded_ms = at.duration_since(spawned)?.as_secs_f64() * 1000.0;
            return Ok(launched);
        }
        if Instant::now() > deadline {
            let _ = launched.stop().await;
            return Err("Paddock logged no 'page loaded' for the main window within 30 s".into());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The time of the first "page loaded" line for the main window logged after `since`.
fn page_loaded_after(logs: &Path, since: SystemTime) -> Option<SystemTime> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(logs)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for line in text.lines() {
            if !(line.contains("page loaded") && line.contains("window=\"main\"")) {
                continue;
            }
            let Some(at) = line
                .split_whitespace()
                .next()
                .and_then(|s| humantime::parse_rfc3339_weak(s).ok())
            else {
                continue;
            };
            if at > since {
                return Some(at);
            }
        }
    }
    None
}
