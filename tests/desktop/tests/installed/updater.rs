//! The AppImage's updater against a local update server: an older version, a signature by
//! another key and a tampered signature are each refused with a clear message and leave the
//! AppImage as it was; a newer version signed with the key built into the app is offered with
//! what changed, installed when the user clicks Install, and runs.

use std::path::Path;
use std::process::Command;

use paddock_desktop_e2e::serve::StaticServer;
use paddock_desktop_e2e::{App, Driver, Result, TestHome, repo_root, testid};
use serde_json::json;

use crate::{click, env_path, open_project, sel, text_of};

/// The throwaway keys' password (scripts/installed-e2e.sh generates both pairs with it).
const KEY_PASSWORD: &str = "paddock-test";

/// `major.(minor+1).0` of `version`.
fn next_minor(version: &str) -> String {
    let mut parts = version.split('.').map(|p| p.parse::<u64>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    format!("{major}.{}.0", minor + 1)
}

fn run(cmd: &mut Command) -> Result<String> {
    let out = cmd.output()?;
    if !out.status.success() {
        return Err(format!("{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// An AppImage of Paddock's runtime whose AppRun says it is `version`.
fn appimage_saying(runtime: &Path, dir: &Path, version: &str) -> Result<Vec<u8>> {
    use std::os::unix::fs::PermissionsExt;
    let appdir = dir.join("next.AppDir");
    std::fs::create_dir_all(&appdir)?;
    let apprun = appdir.join("AppRun");
    std::fs::write(&apprun, format!("#!/bin/sh\necho \"Paddock {version}\"\n"))?;
    std::fs::set_permissions(&apprun, std::fs::Permissions::from_mode(0o755))?;
    let out = dir.join("next.AppImage");
    run(Command::new("bash")
        .arg(repo_root().join("scripts/appimage.sh"))
        .args(["pack".as_ref(), runtime.as_os_str(), appdir.as_os_str()])
        .arg(&out))?;
    Ok(std::fs::read(out)?)
}

/// The `.sig` text (base64) of `bytes` signed with `key`, bound to `version`.
fn sign(dir: &Path, bytes: &[u8], key: &Path, version: &str) -> Result<String> {
    let stem = key.file_stem().unwrap_or_default().to_string_lossy();
    let file = dir.join(format!("{stem}-{version}.AppImage"));
    std::fs::write(&file, bytes)?;
    run(
        Command::new(repo_root().join("packaging/node_modules/.bin/tauri"))
            .args([
                "signer",
                "sign",
                "--app-version",
                version,
                "-p",
                KEY_PASSWORD,
                "-f",
            ])
            .arg(key)
            .arg(&file)
            .env_remove("TAURI_SIGNING_PRIVATE_KEY")
            .env_remove("TAURI_SIGNING_PRIVATE_KEY_PATH")
            .env_remove("TAURI_SIGNING_PRIVATE_KEY_PASSWORD"),
    )?;
    Ok(std::fs::read_to_string(
        dir.join(format!("{stem}-{version}.AppImage.sig")),
    )?)
}

/// The same signature with one byte of the signature itself changed.
fn tampered(signature: &str) -> Result<String> {
    let base64 = |args: &[&str], input: &str| -> Result<String> {
        let mut child = Command::new("base64")
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()?;
        use std::io::Write;
        child
            .stdin
            .take()
            .ok_or("no stdin")?
            .write_all(input.as_bytes())?;
        let out = child.wait_with_output()?;
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let text = base64(&["-d"], signature.trim())?;
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let sig = lines
        .get_mut(1)
        .ok_or("a minisign signature has a second line")?;
    let at = sig.len() - 6;
    let swapped = if &sig[at..=at] == "A" { "B" } else { "A" };
    sig.replace_range(at..=at, swapped);
    base64(&["-w0"], &(lines.join("\n") + "\n"))
}

async fn check(app: &App, state: &str) -> Result<()> {
    click(app, &testid("update-check")).await?;
    app.wait_for(&sel("update-status", &[("data-state", state)]))
        .await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the built AppImage, Xvfb, FUSE and tauri-driver: scripts/installed-e2e.sh"]
async fn the_appimage_installs_only_a_newer_update_signed_with_its_key() -> Result<()> {
    let packages = env_path("PADDOCK_PACKAGES")?;
    let keys = env_path("PADDOCK_UPDATER_KEYS")?;
    let version = env!("CARGO_PKG_VERSION");
    let next = next_minor(version);
    let work = tempfile::Builder::new()
        .prefix("paddock-update-")
        .tempdir()?;

    // The AppImage as a user keeps it: a copy the update replaces.
    let installed = work.path().join("Paddock.AppImage");
    std::fs::copy(
        packages.join(format!("Paddock_{version}_amd64.AppImage")),
        &installed,
    )?;
    let original = std::fs::read(&installed)?;
    let newer = appimage_saying(&packages.join("appimage-runtime"), work.path(), &next)?;
    let key = keys.join("updater.key");
    let good = sign(work.path(), &newer, &key, &next)?;
    let other_key = sign(work.path(), &newer, &keys.join("other.key"), &next)?;
    let older = sign(work.path(), &newer, &key, "0.0.1")?;
    let forged = tampered(&good)?;

    let server = StaticServer::start().await?;
    server.put("/Paddock-next.AppImage", newer.clone());
    let manifest = |v: &str, signature: &str| {
        json!({
            "version": v,
            "notes": "Diffs open twice as fast.",
            "pub_date": "2026-12-01T00:00:00Z",
            "platforms": {"linux-x86_64-appimage": {
                "signature": signature,
                "url": server.url("/Paddock-next.AppImage"),
            }},
        })
        .to_string()
    };
    let home = TestHome::new()?.with_env("PADDOCK_UPDATE_URL", server.url("/latest.json"));
    let root = home.project("updates", None)?;
    let driver = Driver::start_for(&home, "appimage-update", installed.clone()).await?;
    let app = driver.launch().await?;
    open_project(&app, &root).await?;
    click(&app, &testid("tab-sandbox")).await?;
    app.wait_for(&sel("about-install", &[("data-install", "app_image")]))
        .await?;
    text_of(&app, &testid("about-version"), version).await?;

    // An older version, even signed with the right key, is never offered.
    server.put("/latest.json", manifest("0.0.1", &older));
    check(&app, "older").await?;
    text_of(&app, &testid("update-status"), "never goes back").await?;
    assert_eq!(app.count(&testid("update-install")).await?, 0);

    // Signed with another key, or a signature changed on the way: refused, nothing replaced.
    for (signature, says) in [(&other_key, "another key"), (&forged, "does not match")] {
        server.put("/latest.json", manifest(&next, signature));
        check(&app, "available").await?;
        click(&app, &testid("update-install")).await?;
        text_of(&app, &testid("update-error"), says).await?;
        assert!(std::fs::read(&installed)? == original, "{says}: replaced");
    }
    app.screenshot("1-refused").await?;

    // The real thing: offered with what changed, installed on Install, and it runs.
    server.put("/latest.json", manifest(&next, &good));
    check(&app, "available").await?;
    text_of(&app, &testid("update-notes"), "twice as fast").await?;
    click(&app, &testid("update-install")).await?;
    text_of(
        &app,
        &testid("update-installed"),
        &format!("{next} is installed"),
    )
    .await?;
    app.screenshot("2-installed").await?;
    assert!(
        std::fs::read(&installed)? == newer,
        "the AppImage was not replaced"
    );
    app.quit().await?;
    driver.stop().await?;
    let says = run(&mut Command::new(&installed))?;
    assert_eq!(says.trim(), format!("Paddock {next}"));
    Ok(())
}
