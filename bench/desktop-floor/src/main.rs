//! The floor of Paddock's desktop benchmark: the least a Tauri 2 app on this stack costs. One
//! static page, Paddock's main window and compositing setting, nothing else.
//!
//! Prints `page loaded <label> <ms since the epoch>` on stdout when a page finishes loading
//! (the benchmark's signal, taken at the same hook as Paddock's "page loaded" log line).
//! Arguments, for the per-window measurements:
//!   --windows N   open N windows in all (the others sized like Paddock's project windows)
//!   --related     the other windows share the first one's web process (WebKit related view)
//!   --lowered     no GPU stack in the app process, as Paddock runs (its src-tauri/src/main.rs)
//!   --project-sized  the first window sized like a project window too (else like the picker)

use std::io::Write;
use std::time::{SystemTime, UNIX_EPOCH};

use tauri::webview::PageLoadEvent;
use tauri::{AppHandle, Manager, WebviewUrl, WebviewWindowBuilder, Wry};

/// A Paddock project window's size (src-tauri/src/windows.rs).
const PROJECT_W: f64 = 1200.0;
const PROJECT_H: f64 = 800.0;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    #[cfg(target_os = "linux")]
    software_rendering_by_default(args.iter().any(|a| a == "--lowered"));
    let windows = args
        .iter()
        .position(|a| a == "--windows")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(1);
    let related = args.iter().any(|a| a == "--related");
    let project_sized = args.iter().any(|a| a == "--project-sized");
    let built = tauri::Builder::default()
        .on_page_load(|webview, payload| {
            if payload.event() == PageLoadEvent::Finished {
                let ms = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0.0, |d| d.as_secs_f64() * 1000.0);
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out, "page loaded {} {ms:.3}", webview.label());
                let _ = out.flush();
            }
        })
        .setup(move |app| {
            // A window's pixels are memory (X shared memory, the web process's backing store):
            // compared with a project window, the first window takes a project window's size.
            if project_sized && let Some(main) = app.get_webview_window("main") {
                main.set_size(tauri::LogicalSize::new(PROJECT_W, PROJECT_H))?;
            }
            if windows > 1 {
                open_more(app.handle(), windows - 1, related)?;
            }
            Ok(())
        })
        .run(tauri::generate_context!());
    if let Err(e) = built {
        eprintln!("desktop-floor: {e}");
        std::process::exit(1);
    }
}

/// Opens `n` more windows, like Paddock opens project windows.
fn open_more(app: &AppHandle, n: usize, related: bool) -> tauri::Result<()> {
    #[cfg(target_os = "linux")]
    if related {
        let Some(main) = app.get_webview_window("main") else {
            return Ok(());
        };
        let handle = app.clone();
        // The WebKit view only exists on the main thread; build the others from there.
        return main.with_webview(move |platform| {
            let view = platform.inner();
            for i in 1..=n {
                if let Err(e) = build(&handle, i).with_related_view(view.clone()).build() {
                    eprintln!("desktop-floor: window {i}: {e}");
                }
            }
        });
    }
    let _ = related;
    for i in 1..=n {
        build(app, i).build()?;
    }
    Ok(())
}

/// A window like a Paddock project window.
fn build(app: &AppHandle, i: usize) -> WebviewWindowBuilder<'_, Wry, AppHandle> {
    WebviewWindowBuilder::new(
        app,
        format!("extra-{i}"),
        WebviewUrl::App("index.html".into()),
    )
    .title("Desktop Floor")
    .inner_size(PROJECT_W, PROJECT_H)
    .min_inner_size(640.0, 480.0)
}

/// The same logic as Paddock's src-tauri/src/main.rs, so both run with the same compositing
/// setting (off by default, PADDOCK_GPU_COMPOSITING=1 keeps it, an explicit
/// WEBKIT_DISABLE_COMPOSITING_MODE wins); `lowered` adds what Paddock does to keep Mesa out of
/// the app process, so the floor can be measured with and without it.
#[cfg(target_os = "linux")]
fn software_rendering_by_default(lowered: bool) {
    const WEBKIT_VAR: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";
    let wanted = std::env::var_os("PADDOCK_GPU_COMPOSITING").is_some_and(|v| v == "1");
    if wanted {
        return;
    }
    let mut vars = vec![(WEBKIT_VAR, "1")];
    if lowered {
        vars.extend([
            ("GDK_GL", "disable"),
            ("WEBKIT_DISABLE_DMABUF_RENDERER", "1"),
            ("WEBKIT_WEB_RENDER_DEVICE_FILE", "/dev/null"),
        ]);
    }
    for (name, value) in vars {
        if std::env::var_os(name).is_none() {
            // SAFETY: first thing in main, before any other thread exists.
            unsafe {
                std::env::set_var(name, value);
            }
        }
    }
}
