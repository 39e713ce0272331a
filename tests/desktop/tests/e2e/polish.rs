//! The app people keep open all day, in the window: keyboard-only approval, a link opened
//! through the opener (a stub `xdg-open` records it), the model picker switching models
//! between two prompts, a prompt queued during a run, the dark theme, a notification for a
//! window in the background (read off the session bus), and the axe audit on every screen.

use std::time::Duration;

use paddock_desktop_e2e::axe::audit;
use paddock_desktop_e2e::{App, Driver, Result, TestHome, testid};
use paddock_fake_model::{FakeServer, Reply, Script};
use serde_json::json;

use crate::{fake_settings, open_project, sel, send, settings_on_disk, wait_for_text};

/// Collects the serious and critical axe findings of a screen (the spec fails on any, after
/// visiting every screen, so one run names them all).
async fn audited(app: &App, screen: &str, findings: &mut Vec<String>) -> Result<()> {
    for f in audit(app).await? {
        findings.push(format!("{screen}: {f}"));
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the built app, Xvfb, a keyring and tauri-driver: scripts/desktop-e2e.sh"]
async fn a_day_with_the_app_by_keyboard_in_both_themes() -> Result<()> {
    let fake = FakeServer::start().await?;
    fake.load(Script {
        models: vec!["fake-model".into(), "fake-large".into()],
        replies: vec![
            Reply::tool_call("bash", json!({"command": "echo hi"})),
            Reply::text("See [the docs](https://example.com/docs?from=paddock) and run:\n\n```sh\ncargo test\n```"),
            Reply::tool_call("bash", json!({"command": "echo again"})),
            Reply::text("second answer"),
            Reply::text("queued answer"),
            Reply::text("background answer, streamed slowly so the window can lose focus")
                .with_drip_ms(60),
        ],
        ..Script::default()
    });
    let mut home = TestHome::new()?;
    let opened = home.stub_program("xdg-open")?;
    let settings = fake_settings(&fake, json!({"tools": {"bash": "ask"}}));
    let root = home.project("polish", Some(&settings))?;
    std::fs::create_dir_all(root.join(".agent-workspace"))?;
    std::fs::write(root.join(".agent-workspace/notes.md"), "# Notes\n")?;
    let monitor = NotificationLog::start(&home)?;
    let driver = Driver::start(&home, "polish").await?;
    let app = driver.launch().await?;
    app.wait_for(&testid("project-path-input")).await?;
    let mut findings = Vec::new();
    audited(&app, "the picker", &mut findings).await?;
    open_project(&app, &root).await?;

    // Keyboard-only approval: the card takes the focus; "y" allows the call once.
    send(&app, "first").await?;
    let card = app.wait_for(&testid("approval-card")).await?;
    app.wait_until("the approval card has the focus", || async {
        Ok(app
            .wd
            .active_element()
            .await?
            .attr("data-testid")
            .await?
            .as_deref()
            == Some("approval-card"))
    })
    .await?;
    audited(&app, "the transcript with an approval", &mut findings).await?;
    app.screenshot("1-approval-focused").await?;
    card.send_keys("y").await?;
    app.wait_for(&sel("run-banner", &[("data-exit", "end_turn")]))
        .await?;

    // A link shows its address, then opens through the system opener.
    app.click(&format!("{} a", testid("message-assistant")))
        .await?;
    wait_for_text(
        &app,
        &testid("link-url"),
        "https://example.com/docs?from=paddock",
    )
    .await?;
    app.click(&testid("link-open")).await?;
    app.wait_until("xdg-open got the link", || async {
        Ok(std::fs::read_to_string(&opened)
            .unwrap_or_default()
            .contains("https://example.com/docs?from=paddock"))
    })
    .await?;
    assert_eq!(app.count(&testid("copy-code")).await?, 1);

    // The picker switches the model; a prompt written during the run waits for its end.
    app.select(&testid("model-picker"), "fake-large").await?;
    app.wait_until("the model saved", || async {
        Ok(settings_on_disk(&root)?["model"] == "fake-large")
    })
    .await?;
    send(&app, "second").await?;
    app.wait_for(&testid("approval-card")).await?;
    app.type_into(&testid("prompt-input"), "third, queued")
        .await?;
    app.click(&testid("send-button")).await?;
    app.wait_for(&testid("queued-prompt")).await?;
    app.screenshot("2-queued-prompt").await?;
    app.wait_for(&testid("approval-card"))
        .await?
        .send_keys("n")
        .await?;
    app.wait_until("the queued prompt was sent and answered", || async {
        Ok(fake.model_requests().len() >= 5)
    })
    .await?;
    wait_for_text(&app, &testid("message-assistant"), "queued answer").await?;
    let models: Vec<String> = fake
        .model_requests()
        .iter()
        .map(|r| r.body["model"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(models[..2], ["fake-model", "fake-model"], "{models:?}");
    assert_eq!(
        models[2..],
        ["fake-large", "fake-large", "fake-large"],
        "{models:?}"
    );
    assert!(
        fake.model_requests()[4]
            .body
            .to_string()
            .contains("third, queued")
    );

    // Every screen passes the audit, in the dark theme too.
    for tab in ["grants", "workspace", "settings", "sandbox", "transcript"] {
        app.click(&testid(&format!("tab-{tab}"))).await?;
        tokio::time::sleep(Duration::from_millis(300)).await;
        audited(&app, tab, &mut findings).await?;
    }
    app.select(&testid("theme-select"), "dark").await?;
    let background = app
        .wd
        .execute(
            "return getComputedStyle(document.documentElement).backgroundColor",
            Vec::new(),
        )
        .await?;
    assert_eq!(background.json(), &json!("rgb(22, 24, 28)"));
    audited(&app, "the transcript, dark", &mut findings).await?;
    app.click(&testid("tab-grants")).await?;
    audited(&app, "grants, dark", &mut findings).await?;
    app.screenshot("3-dark-grants").await?;
    app.click(&testid("tab-transcript")).await?;
    app.screenshot("4-dark-transcript").await?;

    assert!(findings.is_empty(), "axe found:\n{}", findings.join("\n"));

    // A run that ends while another window has the focus raises a notification.
    send(&app, "fourth").await?;
    app.click(&testid("open-other-project")).await?;
    app.wait_until("the notification server was asked", || async {
        Ok(monitor.text().contains("polish: run finished"))
    })
    .await?;
    app.quit().await?;
    driver.stop().await
}

/// `dbus-monitor` on the session bus, recording every `Notify` call the app makes.
struct NotificationLog {
    child: std::process::Child,
    path: std::path::PathBuf,
}

impl NotificationLog {
    fn start(home: &TestHome) -> Result<Self> {
        let path = home.path().join("notifications.log");
        let out = std::fs::File::create(&path)?;
        let child = std::process::Command::new("dbus-monitor")
            .args([
                "--session",
                "type='method_call',interface='org.freedesktop.Notifications',member='Notify'",
            ])
            .stdout(out)
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| format!("dbus-monitor (dbus-bin) is needed for this spec: {e}"))?;
        Ok(Self { child, path })
    }

    fn text(&self) -> String {
        std::fs::read_to_string(&self.path).unwrap_or_default()
    }
}

impl Drop for NotificationLog {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
