//! This machine's own addresses. A service listening on all interfaces (a dev server, a
//! database) answers on every one of them, not only on loopback: a name whose DNS answer is
//! the address of eth0, or a global IPv6 address of this machine, reaches it as surely as
//! `127.0.0.1` would. So the fence refuses them like loopback.
//!
//! They are listed with `getifaddrs(3)` through `nix` (a safe wrapper, no `unsafe` here; on
//! Linux it asks the kernel over netlink, so it works where `/proc` is hidden and sees every
//! interface). A list is reused until an address is added or removed: on Linux a netlink
//! socket subscribed to address changes says so (one non-blocking `recv` per decision, under
//! a microsecond), with `WATCHED_MAX_AGE` as a backstop; elsewhere, or where that socket
//! cannot be opened, a list older than `UNWATCHED_MAX_AGE` is read again. Listing costs
//! about 60 µs (4 addresses, measured in the dev container), too much for every connection.
//! A list that cannot be read is never cached and refuses every address no rule names
//! exactly: what cannot be judged is refused.

use std::io;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long a list is used when nothing says the addresses changed.
pub const UNWATCHED_MAX_AGE: Duration = Duration::from_secs(1);
/// The same where the kernel tells of every change: a backstop only.
pub const WATCHED_MAX_AGE: Duration = Duration::from_secs(10);

/// The addresses of this machine's interfaces, or why they could not be listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnAddresses {
    list: Result<Vec<(IpAddr, String)>, String>,
}

impl OwnAddresses {
    /// A list of addresses, each with its interface's name.
    pub fn new(list: impl IntoIterator<Item = (IpAddr, String)>) -> Self {
        OwnAddresses {
            list: Ok(list.into_iter().collect()),
        }
    }

    /// No own address at all (for tests and for judging an address by its kind alone).
    pub fn none() -> Self {
        Self::new([])
    }

    /// The addresses could not be listed: every address is refused unless a rule names it.
    pub fn unreadable(why: impl Into<String>) -> Self {
        OwnAddresses {
            list: Err(why.into()),
        }
    }

    /// Lists the interfaces now, without a cache.
    pub fn read() -> Self {
        match list_interfaces() {
            Ok(list) => Self::new(list),
            Err(e) => Self::unreadable(e.to_string()),
        }
    }

    /// The interface `ip` is on, if it is one of this machine's addresses.
    pub fn interface(&self, ip: IpAddr) -> Option<&str> {
        let list = self.list.as_ref().ok()?;
        list.iter()
            .find(|(own, _)| *own == ip)
            .map(|(_, name)| name.as_str())
    }

    /// Why the addresses are unknown, when they are.
    pub fn unreadable_why(&self) -> Option<&str> {
        self.list.as_ref().err().map(String::as_str)
    }

    /// Every address listed (none when unreadable).
    pub fn addresses(&self) -> impl Iterator<Item = IpAddr> + '_ {
        self.list.iter().flatten().map(|(ip, _)| *ip)
    }
}

type Reader = Box<dyn Fn() -> io::Result<Vec<(IpAddr, String)>> + Send + Sync>;
type Watcher = Box<dyn Fn() -> bool + Send + Sync>;

/// A list of own addresses kept fresh (see the module's doc). Clones of the `Arc` it hands
/// out are snapshots: a connection judges all its addresses by one.
pub struct OwnAddressCache {
    read: Reader,
    /// Whether the addresses changed since it was last asked.
    changed: Option<Watcher>,
    max_age: Duration,
    slot: Mutex<Option<(Instant, Arc<OwnAddresses>)>>,
}

impl std::fmt::Debug for OwnAddressCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OwnAddressCache")
            .field("watched", &self.changed.is_some())
            .field("max_age", &self.max_age)
            .finish_non_exhaustive()
    }
}

impl OwnAddressCache {
    /// The machine's interfaces, watched where the platform allows it.
    pub fn system() -> Self {
        // The watch is opened before the first list is read, so no change falls between.
        match watch::open() {
            Ok(watch) => Self::with(list_interfaces, Some(watch), WATCHED_MAX_AGE),
            Err(e) => {
                tracing::debug!("own addresses are re-read by age: no change watch ({e})");
                Self::with(list_interfaces, None, UNWATCHED_MAX_AGE)
            }
        }
    }

    /// A cache over any lister and change signal (tests): `changed` returns whether the
    /// addresses changed since its last call.
    pub fn with(
        read: impl Fn() -> io::Result<Vec<(IpAddr, String)>> + Send + Sync + 'static,
        changed: Option<Box<dyn Fn() -> bool + Send + Sync>>,
        max_age: Duration,
    ) -> Self {
        OwnAddressCache {
            read: Box::new(read),
            changed,
            max_age,
            slot: Mutex::new(None),
        }
    }

    /// The addresses as they are now (a list younger than the age limit, with no change
    /// reported since it was read, is reused).
    pub fn current(&self) -> Arc<OwnAddresses> {
        let mut slot = match self.slot.lock() {
            Ok(slot) => slot,
            Err(poisoned) => poisoned.into_inner(),
        };
        // Asked every time, so a change is never carried over to a later call unseen.
        let changed = self.changed.as_ref().is_some_and(|changed| changed());
        if let Some((at, own)) = slot.as_ref()
            && !changed
            && at.elapsed() < self.max_age
        {
            return own.clone();
        }
        let at = Instant::now();
        match (self.read)() {
            Ok(list) => {
                let own = Arc::new(OwnAddresses::new(list));
                *slot = Some((at, own.clone()));
                own
            }
            Err(e) => {
                *slot = None;
                tracing::warn!("this machine's addresses cannot be listed: {e}");
                Arc::new(OwnAddresses::unreadable(format!(
                    "listing this machine's addresses failed: {e}"
                )))
            }
        }
    }
}

/// The process's cache of this machine's addresses, shared by every proxy and explainer.
pub fn system_cache() -> &'static Arc<OwnAddressCache> {
    static CACHE: OnceLock<Arc<OwnAddressCache>> = OnceLock::new();
    CACHE.get_or_init(|| Arc::new(OwnAddressCache::system()))
}

/// This machine's addresses as they are now, from the process's cache.
pub fn own_addresses() -> Arc<OwnAddresses> {
    system_cache().current()
}

#[cfg(unix)]
fn list_interfaces() -> io::Result<Vec<(IpAddr, String)>> {
    let list = nix::ifaddrs::getifaddrs().map_err(io::Error::from)?;
    Ok(list
        .filter_map(|entry| {
            let address = entry.address?;
            let ip = match (address.as_sockaddr_in(), address.as_sockaddr_in6()) {
                (Some(v4), _) => IpAddr::V4(v4.ip()),
                (None, Some(v6)) => IpAddr::V6(v6.ip()),
                (None, None) => return None,
            };
            Some((ip, entry.interface_name))
        })
        .collect())
}

#[cfg(not(unix))]
fn list_interfaces() -> io::Result<Vec<(IpAddr, String)>> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "listing interfaces is not supported on this platform",
    ))
}

#[cfg(target_os = "linux")]
mod watch {
    //! The kernel's address-change messages (rtnetlink's `RTMGRP_IPV4_IFADDR` and
    //! `RTMGRP_IPV6_IFADDR` groups) on a non-blocking socket: any message, or a lost one
    //! (`ENOBUFS`), means "read the list again". The messages are not parsed.

    use std::io;
    use std::os::fd::OwnedFd;

    use rustix::io::Errno;
    use rustix::net::netlink::SocketAddrNetlink;
    use rustix::net::{AddressFamily, RecvFlags, SocketFlags, SocketType, bind, recv, socket_with};

    const RTMGRP_IPV4_IFADDR: u32 = 0x10;
    const RTMGRP_IPV6_IFADDR: u32 = 0x100;
    /// Messages drained per question at most; more are read the next time (and still
    /// count as a change now).
    const MAX_DRAIN: usize = 256;
    /// Room for one message; a longer one is cut, which is fine: only its arrival counts.
    const MESSAGE_BUF: usize = 2048;

    pub(super) fn open() -> io::Result<Box<dyn Fn() -> bool + Send + Sync>> {
        let flags = SocketFlags::NONBLOCK | SocketFlags::CLOEXEC;
        // Protocol 0 is NETLINK_ROUTE.
        let fd = socket_with(AddressFamily::NETLINK, SocketType::RAW, flags, None)?;
        bind(
            &fd,
            &SocketAddrNetlink::new(0, RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR),
        )?;
        Ok(Box::new(move || drain(&fd)))
    }

    fn drain(fd: &OwnedFd) -> bool {
        let mut buf = [0u8; MESSAGE_BUF];
        let mut changed = false;
        for _ in 0..MAX_DRAIN {
            match recv(fd, &mut buf[..], RecvFlags::DONTWAIT) {
                Ok(_) => changed = true,
                Err(Errno::AGAIN) => return changed,
                Err(Errno::INTR) => {}
                // ENOBUFS: messages were lost, so something changed; anything else: the
                // socket cannot be trusted to say, so read the list (and stop asking it).
                Err(_) => return true,
            }
        }
        true
    }
}

#[cfg(not(target_os = "linux"))]
mod watch {
    pub(super) fn open() -> std::io::Result<Box<dyn Fn() -> bool + Send + Sync>> {
        Err(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "no address-change messages on this platform",
        ))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    use super::*;

    fn counting(
        addrs: Arc<Mutex<Vec<(IpAddr, String)>>>,
        reads: Arc<AtomicUsize>,
    ) -> impl Fn() -> io::Result<Vec<(IpAddr, String)>> + Send + Sync + 'static {
        move || {
            reads.fetch_add(1, Ordering::SeqCst);
            Ok(addrs.lock().unwrap().clone())
        }
    }

    #[test]
    fn the_machine_lists_its_loopback_address() {
        let own = OwnAddresses::read();
        assert_eq!(own.unreadable_why(), None);
        assert!(
            own.interface("127.0.0.1".parse().unwrap()).is_some(),
            "{own:?}"
        );
    }

    /// Guards: an address added to an interface after the list was read being missed
    /// until the process restarts. A change signal re-reads at once.
    #[test]
    fn a_reported_change_reads_the_list_again() {
        let addrs = Arc::new(Mutex::new(vec![(
            "127.0.0.1".parse().unwrap(),
            "lo".into(),
        )]));
        let reads = Arc::new(AtomicUsize::new(0));
        let flag = Arc::new(AtomicBool::new(false));
        let signal = flag.clone();
        let cache = OwnAddressCache::with(
            counting(addrs.clone(), reads.clone()),
            Some(Box::new(move || signal.swap(false, Ordering::SeqCst))),
            Duration::from_secs(3600),
        );
        let eth0: IpAddr = "192.0.2.2".parse().unwrap();
        assert_eq!(cache.current().interface(eth0), None);
        assert_eq!(cache.current().interface(eth0), None);
        assert_eq!(
            reads.load(Ordering::SeqCst),
            1,
            "no change: the list is reused"
        );
        addrs.lock().unwrap().push((eth0, "eth0".into()));
        flag.store(true, Ordering::SeqCst);
        assert_eq!(cache.current().interface(eth0), Some("eth0"));
        assert_eq!(reads.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn an_old_list_is_read_again() {
        let addrs = Arc::new(Mutex::new(Vec::new()));
        let reads = Arc::new(AtomicUsize::new(0));
        let cache = OwnAddressCache::with(counting(addrs, reads.clone()), None, Duration::ZERO);
        cache.current();
        cache.current();
        assert_eq!(reads.load(Ordering::SeqCst), 2);
    }

    /// Guards: a failed listing read as "no own address" (every address of the machine
    /// then let through). It is unreadable, and not cached.
    #[test]
    fn a_failed_listing_is_unreadable_and_tried_again() {
        let reads = Arc::new(AtomicUsize::new(0));
        let count = reads.clone();
        let cache = OwnAddressCache::with(
            move || {
                count.fetch_add(1, Ordering::SeqCst);
                Err(io::Error::other("netlink said no"))
            },
            None,
            Duration::from_secs(3600),
        );
        let own = cache.current();
        assert!(own.unreadable_why().unwrap().contains("netlink said no"));
        cache.current();
        assert_eq!(reads.load(Ordering::SeqCst), 2);
    }
}
