//! `bench-home`: writes a home like the desktop benchmark's (a trusted project with settings
//! and a 2,000-event session) into a new folder that stays, and prints shell lines that point
//! an app at it: `export NAME='value'` (or `unset NAME`), then `PROJECT='path'`. Used by
//! `scripts/startup-order.sh`, so the functions it records are the ones the benchmark's
//! project window runs.

use std::os::unix::ffi::OsStrExt;

use paddock_desktop_e2e::{IDLE_MODEL_URL, Result, TestHome, bench_settings};

const EVENTS: usize = 2_000;

fn main() -> Result<()> {
    let home = TestHome::new()?.as_users_run();
    let project = home.project("demo", Some(&bench_settings(IDLE_MODEL_URL)))?;
    paddock_desktop_e2e::transcript::write_session(&home.data_dir(), &project, EVENTS)?;
    for (name, value) in home.env() {
        match value {
            Some(v) => println!("export {name}={}", quoted(v.as_bytes())?),
            None => println!("unset {name}"),
        }
    }
    println!("PROJECT={}", quoted(project.as_os_str().as_bytes())?);
    home.keep();
    Ok(())
}

/// Single-quoted for sh; the temporary paths this prints never hold a quote.
fn quoted(value: &[u8]) -> Result<String> {
    let text = std::str::from_utf8(value)?;
    if text.contains('\'') {
        return Err(format!("cannot quote {text:?}").into());
    }
    Ok(format!("'{text}'"))
}
