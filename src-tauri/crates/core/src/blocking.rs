//! Blocking work (files, the keychain, a store's index) run off the async threads: one helper
//! for the tools, the host and the shells.

/// Runs `work` on tokio's blocking pool. When it panics (or the runtime drops it) the failure
/// is `stopped`'s error, told what happened, instead of a panic in the caller.
pub async fn blocking<T, E>(
    work: impl FnOnce() -> Result<T, E> + Send + 'static,
    stopped: impl FnOnce(String) -> E,
) -> Result<T, E>
where
    T: Send + 'static,
    E: Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(done) => done,
        Err(e) => Err(stopped(e.to_string())),
    }
}
