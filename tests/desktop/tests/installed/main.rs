//! The installed package is what these specs run: `scripts/installed-e2e.sh` builds the
//! packages, installs the .deb with apt and points `PADDOCK_APP` at `/usr/bin/paddock-desktop`
//! (`PADDOCK_PACKAGES` at the folder of bundles, `PADDOCK_UPDATER_KEYS` at the throwaway key
//! pairs the app was packaged with). Ignored by a plain `cargo test`.

use std::path::{Path, PathBuf};

mod updater;

use paddock_desktop_e2e::{App, Driver, Result, TestHome, app_binary, testid};
use paddock_fake_model::{FakeServer, Reply};
use serde_json::json;
use thirtyfour::prelude::*;

fn sel(id: &str, attrs: &[(&str, &str)]) -> String {
    let mut css = testid(id);
    for (k, v) in attrs {
        css.push_str(&format!("[{k}=\"{v}\"]"));
    }
    css
}

/// Types the folder into the picker, opens it, and switches to the project's window.
async fn open_project(app: &App, root: &Path) -> Result<()> {
    app.type_into(&testid("project-path-input"), &root.to_string_lossy())
        .await?;
    app.click_closing(&testid("open-path-button")).await?;
    app.switch_to_window_with("project=").await
}

/// Waits for an element matching `css` whose text contains `needle`; returns its text.
async fn text_of(app: &App, css: &str, needle: &str) -> Result<String> {
    let matching = || async {
        for e in app.wd.find_all(By::Css(css)).await? {
            let text = e.text().await?;
            if text.contains(needle) {
                return Ok::<_, paddock_desktop_e2e::Error>(Some(text));
            }
        }
        Ok(None)
    };
    let what = format!("{css} containing {needle:?}");
    if let Err(e) = app
        .wait_until(&what, || async { Ok(matching().await?.is_some()) })
        .await
    {
        let mut seen = Vec::new();
        for el in app.wd.find_all(By::Css(css)).await.unwrap_or_default() {
            seen.push(el.text().await.unwrap_or_default());
        }
        return Err(format!("{e}; {css} says {seen:?}").into());
    }
    Ok(matching().await?.unwrap_or_default())
}

/// Clicks, trying again while something still lies over the element (a screen closing).
async fn click(app: &App, css: &str) -> Result<()> {
    let deadline = std::time::Instant::now() + paddock_desktop_e2e::WAIT;
    loop {
        match app.click(css).await {
            Err(e)
                if std::time::Instant::now() < deadline
                    && e.to_string().contains("intercepted") =>
            {
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            }
            other => return other,
        }
    }
}

/// An environment variable the script sets, as a path.
fn env_path(name: &str) -> Result<PathBuf> {
    Ok(std::env::var_os(name)
        .map(PathBuf::from)
        .ok_or_else(|| format!("{name} is not set: run scripts/installed-e2e.sh"))?)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the installed .deb, Xvfb and tauri-driver: scripts/installed-e2e.sh"]
async fn the_installed_app_runs_bash_behind_the_wall_with_its_installed_helper() -> Result<()> {
    let app_path = app_binary();
    assert_eq!(
        app_path,
        Path::new("/usr/bin/paddock-desktop"),
        "PADDOCK_APP"
    );
    let fake = FakeServer::start().await?;
    // Inside the wall: a fresh PID namespace (bubblewrap is its pid 1) and an emptied /run.
    let command = "{ echo \"pid 1: $(cat /proc/1/comm)\"; echo \"run entries: $(ls -A /run | wc -l)\"; } > from-bash.txt";
    fake.push(Reply::tool_call("bash", json!({"command": command})));
    fake.push(Reply::text("Wrote **from-bash.txt** with bash."));
    let settings = json!({
        "version": 1,
        "provider": "openai-compatible",
        "baseUrl": format!("{}/v1", fake.url()),
        "model": "fake-model",
        "preset": "full",
    });
    let home = TestHome::new()?;
    let root = home.untrusted_project("installed", Some(&settings))?;
    let driver = Driver::start(&home, "installed-bash").await?;
    let app = driver.launch().await?;
    open_project(&app, &root).await?;

    // The folder's settings wait for trust; trusting them grants the full preset.
    app.wait_for(&testid("trust-screen")).await?;
    click(&app, &testid("trust-accept")).await?;
    app.wait_until("the trust screen closed", || async {
        Ok(app.count(&testid("trust-screen")).await? == 0)
    })
    .await?;
    click(&app, &testid("tab-sandbox")).await?;
    // The helper the package installed beside the app builds the wall; without it bash is
    // withheld, which the status says.
    let status = text_of(&app, &testid("sandbox-status"), "bash is").await?;
    if app
        .wait_for(&sel("sandbox-status", &[("data-fully-confined", "true")]))
        .await
        .is_err()
    {
        return Err(format!("bash withheld by the installed app: {status}").into());
    }
    text_of(&app, &testid("sandbox-engine"), "bubblewrap").await?;
    let version = env!("CARGO_PKG_VERSION");
    text_of(&app, &testid("about-version"), version).await?;
    app.wait_for(&sel("about-install", &[("data-install", "deb")]))
        .await?;
    app.screenshot("1-sandbox-and-about").await?;

    click(&app, &testid("tab-transcript")).await?;
    app.type_into(&testid("prompt-input"), "Say where bash runs")
        .await?;
    click(&app, &testid("send-button")).await?;
    let card = sel(
        "tool-card",
        &[("data-tool-name", "bash"), ("data-state", "ok")],
    );
    if let Err(e) = app.wait_for(&card).await {
        let cards = app.wd.find_all(By::Css(testid("tool-card"))).await?;
        let mut said = Vec::new();
        for c in cards {
            said.push(c.text().await?);
        }
        return Err(format!("bash did not run: {e}; tool cards: {said:?}").into());
    }
    app.wait_for(&sel("run-banner", &[("data-exit", "end_turn")]))
        .await?;

    // The file bash wrote shows in the workspace browser.
    click(&app, &testid("tab-workspace")).await?;
    let entry = sel(
        "workspace-entry",
        &[("data-path", "from-bash.txt"), ("data-kind", "file")],
    );
    click(&app, &entry).await?;
    let preview = text_of(&app, &testid("file-preview"), "pid 1: bwrap").await?;
    assert!(preview.contains("run entries: 0"), "{preview}");
    app.screenshot("2-workspace").await?;
    let written = std::fs::read_to_string(root.join(".agent-workspace/from-bash.txt"))?;
    assert!(written.contains("pid 1: bwrap"), "{written}");

    app.quit().await?;
    driver.stop().await?;
    Ok(())
}
