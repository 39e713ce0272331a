//! Paddock's desktop app: a Tauri 2 shell over `paddock-host` (and the protocol's types).
//! Every command is one entry of `commands.rs`'s table and a short delegation to the host;
//! docs/desktop-ipc.md and the page's typed client are generated from that table.

pub mod agents;
pub mod commands;
pub mod contract;
pub mod deltas;
pub mod error;
pub mod feed;
pub mod grants;
pub mod keys;
pub mod links;
pub mod local_time;
pub mod logging;
pub mod notify;
pub mod open;
pub mod projects;
pub mod prompts;
pub mod recent;
pub mod runs;
pub mod sessions;
pub mod state;
pub mod tail;
pub mod updates;
pub mod watch;
pub mod windows;
pub mod worktrees;

use std::sync::Arc;
use std::time::Instant;

use paddock_host::Keychain;
use paddock_host::session;
use paddock_host::trust::TrustStore;
use tauri::webview::PageLoadEvent;
use tauri::{Manager, RunEvent, WindowEvent};

use crate::state::Desktop;

/// Builds and runs the app; returns when the last window has closed.
pub fn run() {
    let started = Instant::now();
    paddock_host::sweep_walls_left_behind();
    let app = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_opener::init())
        .plugin(tauri_plugin_notification::init())
        .plugin(updates::plugin())
        .setup(move |app| {
            match app.path().app_log_dir() {
                Ok(dir) => match logging::init(&dir) {
                    Ok(guard) => {
                        app.manage(guard);
                    }
                    Err(e) => eprintln!("paddock: {e}"),
                },
                Err(e) => eprintln!("paddock: no log folder: {e}"),
            }
            // The same data dir as the CLI (PADDOCK_DATA_DIR overrides it), so sessions are
            // shared and survive restarts.
            let data_dir = session::data_dir()?;
            let ms = started.elapsed().as_millis();
            tracing::info!(data_dir = %data_dir.display(), ms, "Paddock started");
            let trust = TrustStore::open_default()?;
            app.manage(Desktop::new(&data_dir, trust, Arc::new(Keychain)));
            app.manage(Arc::new(notify::Notifier::default()));
            app.manage(updates::Pending::default());
            notify::Notifier::listen(app.handle());
            #[cfg(unix)]
            exit_on_signals(app.handle().clone());
            Ok(())
        })
        .on_page_load(move |webview, payload| {
            // A new page will not ask for what the old one's feeds hold.
            if payload.event() == PageLoadEvent::Started
                && let Some(desktop) = webview.try_state::<Desktop>()
            {
                desktop.forget_window(webview.label());
            }
            // Start-up time as users feel it, for the logs and the benchmark.
            if payload.event() == PageLoadEvent::Finished {
                let ms = started.elapsed().as_millis();
                tracing::info!(window = webview.label(), ms, "page loaded");
            }
        })
        .on_window_event(|window, event| {
            if let WindowEvent::Destroyed = event {
                window_closed(window.app_handle(), window.label());
            }
        })
        .invoke_handler(commands::handler())
        .build(tauri::generate_context!());
    let app = match app {
        Ok(app) => app,
        Err(e) => {
            eprintln!("paddock: cannot start the app: {e}");
            std::process::exit(1);
        }
    };
    app.run(|handle, event| {
        if let RunEvent::Exit = event
            && let Some(desktop) = handle.try_state::<Desktop>()
        {
            tauri::async_runtime::block_on(desktop.shutdown());
        }
    });
}

/// SIGTERM / SIGINT (logout, Ctrl-C in a terminal) leave through the normal exit, so MCP
/// servers (in their own process groups) are stopped rather than orphaned.
#[cfg(unix)]
fn exit_on_signals<R: tauri::Runtime>(app: tauri::AppHandle<R>) {
    use tokio::signal::unix::{SignalKind, signal};
    tauri::async_runtime::spawn(async move {
        let (Ok(mut term), Ok(mut int)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) else {
            tracing::warn!("cannot listen for SIGTERM/SIGINT");
            return;
        };
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
        tracing::info!("signal received; shutting down");
        app.exit(0);
    });
}

/// A project window's runs stop with it, and its watcher and notification clicks go.
fn window_closed<R: tauri::Runtime>(app: &tauri::AppHandle<R>, label: &str) {
    if let Some(notifier) = app.try_state::<Arc<notify::Notifier>>() {
        notifier.forget(label);
    }
    let Some(desktop) = app.try_state::<Desktop>() else {
        return;
    };
    desktop.forget_window(label);
    if let Some(root) = desktop.project_for_window(label) {
        tracing::info!(project = %root.display(), "project window closed; stopping its runs");
        desktop.runs().stop_project(&root);
    }
}
