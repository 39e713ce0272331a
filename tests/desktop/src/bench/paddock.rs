//! Paddock under WebDriver: first paint, project windows opened from the picker, and the
//! time to open a long transcript.

use std::path::Path;
use std::time::Duration;

use paddock_desktop_e2e::{App, Result, testid};
use serde_json::{Value, json};

use crate::procs;

/// The turns the view opens a stored session on (`OPEN_TURNS`, ui/src/lib/session.svelte.ts).
const OPEN_TURNS: u32 = 20;

/// When the main window painted, split at the page's navigation start.
pub struct Start {
    /// Process start to first contentful paint.
    pub total: f64,
    /// Process start to the page's navigation start (GTK, WebKit processes, the window).
    pub to_navigation: f64,
}

/// How long the page may take to paint after the picker's input is in it.
const PAINT_WAIT_MS: u32 = 10_000;

/// Milliseconds from the process's start to the main window's first contentful paint.
pub async fn cold_start_ms(app: &App, pid: u32) -> Result<Start> {
    // The picker's input can be in the page a frame before its first paint: wait for the
    // entry rather than read it once (which failed now and then as "no paint timing").
    let paint: Value = app
        .wd
        .execute_async(
            "const [limit, done] = arguments;
             const t0 = performance.now();
             const check = () => {
               const p = performance.getEntriesByName('first-contentful-paint')[0]
                 || performance.getEntriesByType('paint')[0];
               if (p) done([performance.timeOrigin, p.startTime]);
               else if (performance.now() - t0 > limit) done(null);
               else setTimeout(check, 20);
             };
             check();",
            vec![json!(PAINT_WAIT_MS)],
        )
        .await?
        .json()
        .clone();
    let (Some(origin), Some(fcp)) = (paint[0].as_f64(), paint[1].as_f64()) else {
        return Err(format!(
            "the webview reports no paint timing (PerformancePaintTiming) {PAINT_WAIT_MS} ms \
             after the picker's input was in the page"
        )
        .into());
    };
    let started = procs::process_start_epoch_ms(pid)?;
    Ok(Start {
        total: origin + fcp - started,
        to_navigation: origin - started,
    })
}

/// Types `root` into the picker, opens it and switches to its window (the picker then
/// closes itself).
pub async fn open_from_picker(app: &App, root: &Path) -> Result<()> {
    app.wait_for(&testid("project-path-input")).await?;
    app.type_into(&testid("project-path-input"), &root.to_string_lossy())
        .await?;
    app.click_closing(&testid("open-path-button")).await?;
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    app.switch_to_window_where(&name, |url| {
        url.contains("project=") && url.contains(&format!("%2F{name}"))
    })
    .await?;
    app.wait_for(&testid("new-session")).await?;
    Ok(())
}

/// From a project window: "Open project…" brings the picker back; open `root` from it.
pub async fn open_another(app: &App, root: &Path) -> Result<()> {
    app.click(&testid("open-other-project")).await?;
    app.switch_to_window_where("no project", |url| !url.contains("project="))
        .await?;
    open_from_picker(app, root).await
}

/// How many windows the session sees (the picker counts while it is open).
pub async fn window_count(app: &App) -> Result<usize> {
    Ok(app.wd.windows().await?.len())
}

pub struct Open {
    /// Click to the frame after the transcript's final banner is in the page.
    pub total: f64,
    /// `load_session` of the whole session over IPC, parse included, nothing rendered.
    pub load: f64,
    /// The same for the last turns the view opens on.
    pub load_tail: f64,
    pub cards: u64,
    /// From the click: the UI asked for the session, had it, had rebuilt the transcript.
    pub marks: [Option<f64>; 3],
}

pub fn ms(mark: Option<f64>) -> String {
    mark.map_or_else(|| "?".to_owned(), |m| format!("{m:.0} ms"))
}

/// Opens the session from the sidebar and times it inside the page (no WebDriver round trips
/// in the measurement).
pub async fn open_transcript_ms(app: &App, session: &str) -> Result<Open> {
    app.wd.set_script_timeout(Duration::from_secs(120)).await?;
    let project = app
        .wd
        .current_url()
        .await?
        .query_pairs()
        .find(|(k, _)| k == "project")
        .map(|(_, v)| v.into_owned())
        .ok_or("the project window has no ?project=")?;
    let load: Value = app
        .wd
        .execute_async(
            "const [project, sessionId, done] = arguments;
             const invoke = window.__TAURI_INTERNALS__.invoke;
             const timed = async (tail) => {
               const t0 = performance.now();
               await invoke('load_session', { project, sessionId, tail });
               return performance.now() - t0;
             };
             timed(null).then(async (whole) => done([whole, await timed(OPEN_TURNS)]), () => done(null));"
                .replace("OPEN_TURNS", &OPEN_TURNS.to_string()),
            vec![json!(project), json!(session)],
        )
        .await?
        .json()
        .clone();
    let measured: Value = app
        .wd
        .execute_async(
            "const [sessionId, done] = arguments;
             const item = document.querySelector(
               `[data-testid=session-item][data-session-id=\"${sessionId}\"] [data-testid=session-open]`);
             if (!item) { done({ error: 'no session-open for ' + sessionId }); return; }
             const t0 = performance.now();
             item.click();
             const check = () => {
               if (document.querySelector('[data-testid=run-banner]')) {
                 requestAnimationFrame(() => {
                   const at = (name) => {
                     const m = performance.getEntriesByName('paddock:' + name).at(-1);
                     return m && m.startTime >= t0 ? m.startTime - t0 : null;
                   };
                   done({
                     ms: performance.now() - t0,
                     cards: document.querySelectorAll('[data-testid=tool-card]').length,
                     marks: [at('session-open'), at('session-loaded'), at('session-rebuilt')],
                   });
                 });
               } else if (performance.now() - t0 > 100000) {
                 done({ error: 'the transcript did not render within 100 s' });
               } else {
                 requestAnimationFrame(check);
               }
             };
             requestAnimationFrame(check);",
            vec![json!(session)],
        )
        .await?
        .json()
        .clone();
    if let Some(e) = measured.get("error") {
        return Err(format!("{e}").into());
    }
    Ok(Open {
        total: measured["ms"].as_f64().ok_or("no timing")?,
        load: load[0].as_f64().ok_or("no load timing")?,
        load_tail: load[1].as_f64().ok_or("no load timing")?,
        cards: measured["cards"].as_u64().unwrap_or(0),
        marks: [0, 1, 2].map(|i| measured["marks"][i].as_f64()),
    })
}
