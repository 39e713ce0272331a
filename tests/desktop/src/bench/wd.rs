//! The floor app under WebDriver, so its memory can be compared with Paddock's project
//! windows (which only WebDriver can open) under the same automation overhead.

use std::time::{Duration, Instant};

use paddock_desktop_e2e::{Driver, Result, WAIT};
use thirtyfour::WebDriver;

/// A session of `driver` (started for the floor app) running it with `args`, once its page
/// has loaded.
pub async fn floor_session(driver: &Driver, args: &[&str]) -> Result<WebDriver> {
    let wd = driver.session(args).await?;
    let deadline = Instant::now() + WAIT;
    loop {
        let state = wd.execute("return document.readyState", Vec::new()).await?;
        if state.json() == "complete" {
            return Ok(wd);
        }
        if Instant::now() > deadline {
            return Err("the floor page did not load".into());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
