//! Unix sockets bound by a path anywhere on the host. A read-only mount does not stop a
//! `connect()`, so every listening socket the wall still shows (outside the emptied and
//! hidden folders) is masked by path. The kernel lists them in `/proc/net/unix`: the path
//! each was bound at, for the network namespace Paddock runs in.

use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::path::PathBuf;

/// Bytes of `/proc/net/unix` read at most (about 60,000 sockets).
const MAX_TABLE_BYTES: u64 = 8 * 1024 * 1024;

/// The host's path sockets that exist now, by the path they were bound at.
pub fn host_sockets() -> Vec<PathBuf> {
    let mut table = String::new();
    let read = std::fs::File::open("/proc/net/unix")
        .and_then(|f| f.take(MAX_TABLE_BYTES).read_to_string(&mut table));
    if read.is_err() {
        return Vec::new();
    }
    let mut out: Vec<PathBuf> = parse(&table)
        .filter(|p| std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_socket()))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The absolute paths in the table (abstract names start with `@`; unnamed ones have none).
fn parse(table: &str) -> impl Iterator<Item = PathBuf> + '_ {
    // Num RefCount Protocol Flags Type St Inode Path: the path is what follows the seventh
    // field, and may hold spaces.
    table.lines().skip(1).filter_map(|line| {
        let mut rest = line.trim_start();
        for _ in 0..7 {
            let end = rest.find(char::is_whitespace)?;
            rest = rest[end..].trim_start();
        }
        rest.starts_with('/').then(|| PathBuf::from(rest))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_read_from_the_table() {
        let table = "Num       RefCount Protocol Flags    Type St Inode Path\n\
            0000000000000000: 00000002 00000000 00010000 0001 01 20314 /run/dbus/system_bus_socket\n\
            0000000000000000: 00000002 00000000 00010000 0001 01 20315 @/tmp/.X11-unix/X0\n\
            0000000000000000: 00000003 00000000 00000000 0001 03 20316\n\
            0000000000000000: 00000002 00000000 00010000 0001 01 20317 /home/u/my socket\n";
        let paths: Vec<PathBuf> = parse(table).collect();
        assert_eq!(
            paths,
            ["/run/dbus/system_bus_socket", "/home/u/my socket"].map(PathBuf::from)
        );
    }

    #[test]
    fn a_listener_here_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sock");
        let _listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        assert!(host_sockets().contains(&path));
    }
}
