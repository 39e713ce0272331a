//! Every engine as tried on this host: whether it works, and if not, why and the fix.

use super::HostWalls;

/// Each engine as tried here, strongest first.
pub(super) fn checks(walls: &HostWalls) -> Vec<paddock_protocol::EngineCheck> {
    use paddock_protocol::EngineCheck;
    let check = |engine: &str, result: Result<(), (String, Option<String>)>| match result {
        Ok(()) => EngineCheck {
            engine: engine.to_owned(),
            works: true,
            why: String::new(),
            fix: None,
        },
        Err((why, fix)) => EngineCheck {
            engine: engine.to_owned(),
            works: false,
            why,
            fix: fix.filter(|f| !f.is_empty()),
        },
    };
    vec![
        check(
            "bubblewrap",
            walls
                .bubblewrap
                .as_ref()
                .map(|_| ())
                .map_err(|(why, fix)| (why.clone(), Some(fix.clone()))),
        ),
        check(
            "namespaces",
            walls
                .namespaces
                .clone()
                .map_err(|(why, fix)| (why, Some(fix))),
        ),
        check(
            "landlock",
            walls.landlock.as_ref().map(|_| ()).map_err(|why| {
                (
                    why.clone(),
                    Some(
                        "a kernel with Landlock (Linux 5.13 or later, with landlock in its \
                          lsm= list)"
                            .to_owned(),
                    ),
                )
            }),
        ),
    ]
}
