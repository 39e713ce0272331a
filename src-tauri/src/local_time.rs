//! Stored times as the UI shows them: in the machine's time zone, worked out here. The page
//! then formats a time from its fields alone; asking JavaScript for a local time instead loads
//! ICU's zone and locale data into the web process (measured on the desktop floor: +1.8 MB for
//! `getHours()`, +3.8 MB for `toLocaleString`), for a line of text in the sidebar.

use chrono::{DateTime, Local, SecondsFormat, TimeZone};

/// The same instant as `rfc3339`, written with the machine's offset at that instant (so a
/// summer time gets the summer offset); unchanged when it does not parse.
pub fn local(rfc3339: &str) -> String {
    in_zone(rfc3339, &Local)
}

fn in_zone<Tz: TimeZone>(rfc3339: &str, zone: &Tz) -> String
where
    Tz::Offset: std::fmt::Display,
{
    DateTime::parse_from_rfc3339(rfc3339).map_or_else(
        |_| rfc3339.to_owned(),
        |t| {
            t.with_timezone(zone)
                .to_rfc3339_opts(SecondsFormat::Secs, false)
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_keeps_its_instant_and_takes_the_local_offset() {
        for stored in ["2026-12-04T01:02:03Z", "2026-07-01T23:59:59+02:00"] {
            let shown = local(stored);
            let (a, b) = (
                DateTime::parse_from_rfc3339(stored).unwrap(),
                DateTime::parse_from_rfc3339(&shown).unwrap(),
            );
            assert_eq!(a, b, "{stored} -> {shown}");
            assert_eq!(
                b.offset().local_minus_utc(),
                a.with_timezone(&Local).offset().local_minus_utc(),
                "{shown}"
            );
        }
    }

    #[test]
    fn a_zone_east_of_utc_moves_the_wall_clock_and_the_date() {
        let paris = chrono::FixedOffset::east_opt(3600).unwrap();
        assert_eq!(
            in_zone("2026-12-03T23:30:00Z", &paris),
            "2026-12-04T00:30:00+01:00"
        );
        let utc = chrono::Utc;
        assert_eq!(
            in_zone("2026-12-04T00:30:00+01:00", &utc),
            "2026-12-03T23:30:00+00:00"
        );
    }

    #[test]
    fn what_does_not_parse_is_shown_as_stored() {
        assert_eq!(local("yesterday"), "yesterday");
        assert_eq!(local(""), "");
    }
}
