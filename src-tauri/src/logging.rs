//! Logs go to a daily-rotated file in the app's log dir (a week kept). Nothing logged carries a
//! key: keys stay in the keychain and the providers' `ApiKey` never prints itself.

use std::path::Path;

use tracing_appender::non_blocking::{NonBlockingBuilder, WorkerGuard};
use tracing_appender::rolling::{Builder, Rotation};
use tracing_subscriber::EnvFilter;

/// Overrides the log filter (e.g. `PADDOCK_LOG=debug`).
pub const LOG_ENV: &str = "PADDOCK_LOG";
const DEFAULT_FILTER: &str = "info,hyper=warn,reqwest=warn,tao=warn,wry=warn";
/// Lines queued for the writer thread. The appender's default, 128,000, is a channel it
/// allocates and touches whole at start: 4 MB of the app's memory for a log that writes a few
/// lines a second. Past this many (a burst the thread has not caught up with), lines are
/// dropped rather than block the caller.
const BUFFERED_LINES: usize = 4_096;

/// Starts logging to `<dir>/paddock.<date>.log`. Keep the guard for the app's lifetime: it
/// flushes the writer thread on drop.
pub fn init(dir: &Path) -> Result<WorkerGuard, String> {
    // The appender prunes old files before it creates the folder: on a first launch that
    // printed a read_dir error to stderr.
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("cannot create the log folder {}: {e}", dir.display()))?;
    let appender = Builder::new()
        .rotation(Rotation::DAILY)
        .filename_prefix("paddock")
        .filename_suffix("log")
        .max_log_files(7)
        .build(dir)
        .map_err(|e| format!("cannot write logs to {}: {e}", dir.display()))?;
    let (writer, guard) = NonBlockingBuilder::default()
        .buffered_lines_limit(BUFFERED_LINES)
        .lossy(true)
        .finish(appender);
    let filter =
        EnvFilter::try_from_env(LOG_ENV).unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    tracing_subscriber::fmt()
        .with_writer(writer)
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init()
        .map_err(|e| format!("logging is already set up: {e}"))?;
    Ok(guard)
}

#[cfg(test)]
mod tests {
    use super::*;

    // The only test in this binary that installs the global subscriber.
    #[test]
    fn a_first_launch_creates_the_log_folder_and_writes_there() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("share/dev.paddock.app/logs");
        let guard = init(&dir).unwrap();
        tracing::info!("first line");
        drop(guard);
        let files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
        assert_eq!(files.len(), 1, "{files:?}");
        let name = files[0].file_name().to_string_lossy().into_owned();
        assert!(
            name.starts_with("paddock.") && name.ends_with(".log"),
            "{name}"
        );
        let text = std::fs::read_to_string(files[0].path()).unwrap();
        assert!(text.contains("first line"), "{text}");
    }
}
