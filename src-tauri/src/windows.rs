//! One window per project, and the native dialogs (run from Rust: the webview has no dialog
//! permission).

use std::path::{Path, PathBuf};

use tauri::webview::PlatformWebview;
use tauri::{AppHandle, Manager, Runtime, WebviewUrl, WebviewWindow, WebviewWindowBuilder};
use tauri_plugin_dialog::DialogExt;
use tokio::sync::oneshot;

use crate::error::{AppResult, internal};

/// The picker's window label (the first window in tauri.conf.json).
pub const PICKER_LABEL: &str = "main";

/// Prefix of project window labels (the capability file matches `project-*`).
pub const PROJECT_LABEL_PREFIX: &str = "project-";

/// A stable window label for a project: labels allow only a few characters, so the path is
/// hashed (FNV-1a, stable across runs).
pub fn label(root: &Path) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in root.to_string_lossy().as_bytes() {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{PROJECT_LABEL_PREFIX}{hash:016x}")
}

/// The page a project window loads; the UI reads the `project` query parameter.
pub fn project_url(root: &Path) -> String {
    let encoded: String =
        url::form_urlencoded::byte_serialize(root.to_string_lossy().as_bytes()).collect();
    format!("index.html?project={encoded}")
}

/// Focuses the project's window, or opens it. On Linux a new window joins the web process of
/// a window already open (see [`related_window`]).
pub async fn open_project_window<R: Runtime>(
    app: &AppHandle<R>,
    root: &Path,
    name: &str,
) -> AppResult<()> {
    let label = label(root);
    if let Some(window) = app.get_webview_window(&label) {
        let _ = window.unminimize();
        window
            .set_focus()
            .map_err(|e| internal(format!("cannot focus the project window: {e}")))?;
        return Ok(());
    }
    let title = format!("{name} — Paddock");
    let url = WebviewUrl::App(PathBuf::from(project_url(root)));
    let window = label.clone();
    build_beside(app, move |app, related| {
        let builder = WebviewWindowBuilder::new(app, &window, url.clone())
            .title(&title)
            .inner_size(1200.0, 800.0)
            .min_inner_size(640.0, 480.0);
        related_to(builder, related).build().map(|_| ())
    })
    .await
    .map_err(|e| internal(format!("cannot open a window for {}: {e}", root.display())))?;
    tracing::info!(project = %root.display(), window = %label, "project window opened");
    Ok(())
}

/// Builds a window with `build`, in the web process of a window already open when there is
/// one (see [`related_window`]).
async fn build_beside<R, F>(app: &AppHandle<R>, build: F) -> tauri::Result<()>
where
    R: Runtime,
    F: Fn(&AppHandle<R>, Option<&PlatformWebview>) -> tauri::Result<()> + Clone + Send + 'static,
{
    if let Some(existing) = related_window(app) {
        // The open window's view is only reachable on the main thread, so the window is
        // built there, and the outcome comes back here.
        let (tx, rx) = oneshot::channel();
        let (handle, there) = (app.clone(), build.clone());
        let sent = existing.with_webview(move |platform| {
            let _ = tx.send(there(&handle, Some(&platform)));
        });
        if sent.is_ok()
            && let Ok(built) = rx.await
        {
            return built;
        }
        // That window closed before it could run the build: the new one gets its own process.
    }
    build(app, None)
}

fn related_to<'a, R: Runtime>(
    builder: WebviewWindowBuilder<'a, R, AppHandle<R>>,
    related: Option<&PlatformWebview>,
) -> WebviewWindowBuilder<'a, R, AppHandle<R>> {
    #[cfg(target_os = "linux")]
    if let Some(view) = related {
        return builder.with_related_view(view.inner());
    }
    #[cfg(not(target_os = "linux"))]
    let _ = related;
    builder
}

/// The window whose web process a new one joins: an open project window (the picker closes
/// once it has opened a project), else any window; None off Linux.
///
/// Each further window of one WebKitGTK web process costs ~8 MB instead of ~45 MB for a
/// process of its own (measured by `scripts/bench-desktop.sh`). Every page is Paddock's own
/// UI, so the price, a long task or a crash in one page reaching every window, is small.
fn related_window<R: Runtime>(app: &AppHandle<R>) -> Option<WebviewWindow<R>> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let windows = app.webview_windows();
    windows
        .iter()
        .find(|(label, _)| label.starts_with(PROJECT_LABEL_PREFIX))
        .or_else(|| windows.iter().next())
        .map(|(_, w)| w.clone())
}

/// Closes the picker once it has opened a project: it is done (its share of the web process
/// it shares, or its own process off Linux, is freed). A project window's "Open project…"
/// brings it back.
pub fn close_picker<R: Runtime>(from: &WebviewWindow<R>) {
    if from.label() != PICKER_LABEL {
        return;
    }
    if let Err(e) = from.close() {
        tracing::warn!("cannot close the project picker: {e}");
    }
}

/// Focuses the picker window, or opens it again as tauri.conf.json describes it.
pub async fn show_picker<R: Runtime>(app: &AppHandle<R>) -> AppResult<()> {
    if let Some(window) = app.get_webview_window(PICKER_LABEL) {
        let _ = window.unminimize();
        return window
            .set_focus()
            .map_err(|e| internal(format!("cannot focus the project picker: {e}")));
    }
    let config = app
        .config()
        .app
        .windows
        .iter()
        .find(|w| w.label == PICKER_LABEL)
        .cloned()
        .ok_or_else(|| internal("the app configuration has no picker window"))?;
    build_beside(app, move |app, related| {
        let builder = WebviewWindowBuilder::from_config(app, &config)?;
        related_to(builder, related).build().map(|_| ())
    })
    .await
    .map_err(|e| internal(format!("cannot open the project picker: {e}")))
}

/// The native folder picker; `None` when cancelled.
pub async fn pick_folder<R: Runtime>(app: &AppHandle<R>) -> AppResult<Option<String>> {
    let (tx, rx) = oneshot::channel();
    app.dialog()
        .file()
        .set_title("Open a project folder")
        .pick_folder(move |folder| {
            let _ = tx.send(folder);
        });
    let folder = rx
        .await
        .map_err(|_| internal("the folder dialog closed without an answer"))?;
    Ok(folder
        .and_then(|f| f.into_path().ok())
        .map(|p| p.to_string_lossy().into_owned()))
}

/// The native save dialog; `None` when cancelled.
pub async fn pick_save_path<R: Runtime>(
    app: &AppHandle<R>,
    suggested: &str,
) -> AppResult<Option<PathBuf>> {
    let (tx, rx) = oneshot::channel();
    app.dialog()
        .file()
        .set_title("Export session")
        .set_file_name(suggested)
        .save_file(move |path| {
            let _ = tx.send(path);
        });
    let path = rx
        .await
        .map_err(|_| internal("the save dialog closed without an answer"))?;
    Ok(path.and_then(|p| p.into_path().ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_stable_and_distinct() {
        let a = label(Path::new("/home/me/a"));
        assert_eq!(a, label(Path::new("/home/me/a")));
        assert_ne!(a, label(Path::new("/home/me/b")));
        assert!(a.starts_with(PROJECT_LABEL_PREFIX));
        assert!(a.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
    }

    #[test]
    fn the_project_path_is_url_encoded() {
        assert_eq!(
            project_url(Path::new("/tmp/my project/ü&x")),
            "index.html?project=%2Ftmp%2Fmy+project%2F%C3%BC%26x"
        );
    }
}
