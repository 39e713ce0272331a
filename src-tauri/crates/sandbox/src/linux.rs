//! Linux pieces the helper uses: a Landlock ruleset (write only inside the writable roots,
//! read everything, abstract sockets and signals scoped), uid/gid maps and loopback for new
//! namespaces.

use std::io;
use std::path::PathBuf;
use std::sync::OnceLock;

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, LandlockStatus, RestrictSelf,
    Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr, Scope, path_beneath_rules,
};

/// The newest Landlock ABI this code asks for; older kernels get what they support.
const LANDLOCK_ABI: ABI = ABI::V7;
/// Device files any shell needs to write (`2>/dev/null`) even under Landlock.
const WRITABLE_DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full", "/dev/tty"];

/// The kernel's Landlock ABI, or why there is none; asked once per process.
pub fn landlock_abi() -> &'static Result<u32, String> {
    static ABI: OnceLock<Result<u32, String>> = OnceLock::new();
    ABI.get_or_init(probe_landlock)
}

fn probe_landlock() -> Result<u32, String> {
    // Without flags and without no_new_privs this only asks the kernel for its ABI.
    match RestrictSelf::default().no_new_privs(false).apply() {
        Ok(status) => match status.landlock {
            LandlockStatus::Available {
                effective_abi,
                kernel_abi,
            } => Ok(kernel_abi
                .and_then(|v| u32::try_from(v).ok())
                .unwrap_or(effective_abi as u32)),
            LandlockStatus::NotEnabled => Err("Landlock is built into the kernel but not enabled \
                 (add `landlock` to the lsm= boot parameter)"
                .to_owned()),
            LandlockStatus::NotImplemented => {
                Err("this kernel has no Landlock support (Linux 5.13 or later needed)".to_owned())
            }
        },
        Err(e) => Err(format!("Landlock probe failed: {e}")),
    }
}

/// uid/gid map lines, formatted before fork so the child never allocates.
#[derive(Debug, Clone)]
pub struct IdMaps {
    uid: Vec<u8>,
    gid: Vec<u8>,
}

impl IdMaps {
    pub fn current() -> Self {
        let uid = rustix::process::getuid().as_raw();
        let gid = rustix::process::getgid().as_raw();
        Self {
            uid: format!("{uid} {uid} 1\n").into_bytes(),
            gid: format!("{gid} {gid} 1\n").into_bytes(),
        }
    }
}

/// In a new user namespace: the same uid/gid inside as outside.
pub fn write_id_maps(maps: &IdMaps) -> io::Result<()> {
    #[allow(unsafe_code)]
    // SAFETY: plain system calls with valid pointers to memory owned by `maps`.
    unsafe {
        write_proc(c"/proc/self/setgroups", b"deny")?;
        write_proc(c"/proc/self/uid_map", &maps.uid)?;
        write_proc(c"/proc/self/gid_map", &maps.gid)?;
    }
    Ok(())
}

/// In a new network namespace: its own loopback up, so local servers the command starts work.
pub fn bring_loopback_up() {
    #[allow(unsafe_code)]
    // SAFETY: see `loopback_up`.
    unsafe {
        loopback_up();
    }
}

#[allow(unsafe_code)]
unsafe fn write_proc(path: &std::ffi::CStr, data: &[u8]) -> io::Result<()> {
    // SAFETY: `path` is NUL-terminated, `data` is a valid slice; the fd is closed on all paths.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let n = libc::write(fd, data.as_ptr().cast(), data.len());
        let err = io::Error::last_os_error();
        libc::close(fd);
        if n < 0 {
            return Err(err);
        }
    }
    Ok(())
}

/// Best effort: a namespace without loopback still isolates, it is only less useful.
#[allow(unsafe_code)]
unsafe fn loopback_up() {
    // SAFETY: `req` is a zeroed ifreq owned by this frame; the socket is closed at the end.
    unsafe {
        let sock = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if sock < 0 {
            return;
        }
        let mut req: libc::ifreq = std::mem::zeroed();
        for (dst, src) in req.ifr_name.iter_mut().zip(b"lo\0") {
            *dst = *src as libc::c_char;
        }
        if libc::ioctl(sock, libc::SIOCGIFFLAGS as libc::Ioctl, &mut req) == 0 {
            req.ifr_ifru.ifru_flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
            libc::ioctl(sock, libc::SIOCSIFFLAGS as libc::Ioctl, &mut req);
        }
        libc::close(sock);
    }
}

/// A Landlock ruleset built in the parent, applied by the child.
pub struct LandlockRules {
    ruleset: RulesetCreated,
}

impl std::fmt::Debug for LandlockRules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LandlockRules")
    }
}

impl LandlockRules {
    /// Read and execute everywhere, write only beneath `writable` (and a few device files).
    /// With `deny_tcp`, TCP connect and bind are denied too (the fallback when no network
    /// namespace can be made). Abstract UNIX sockets and signals are scoped to the sandbox.
    pub fn build(
        writable: &[PathBuf],
        deny_tcp: bool,
        scope_sockets: bool,
    ) -> Result<Self, String> {
        let all = AccessFs::from_all(LANDLOCK_ABI);
        let read = AccessFs::from_read(LANDLOCK_ABI);
        let mut ruleset = Ruleset::default()
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(all)
            .map_err(|e| e.to_string())?;
        if deny_tcp {
            ruleset = ruleset
                .handle_access(AccessNet::from_all(LANDLOCK_ABI))
                .map_err(|e| e.to_string())?;
        }
        let mut scopes = landlock::BitFlags::from(Scope::Signal);
        if scope_sockets {
            scopes |= Scope::AbstractUnixSocket;
        }
        let ruleset = ruleset
            .scope(scopes)
            .map_err(|e| e.to_string())?
            .create()
            .map_err(|e| e.to_string())?
            .add_rules(path_beneath_rules(["/"], read))
            .map_err(|e| e.to_string())?
            .add_rules(path_beneath_rules(writable, all))
            .map_err(|e| e.to_string())?
            .add_rules(path_beneath_rules(WRITABLE_DEVICES, all))
            .map_err(|e| e.to_string())?;
        Ok(Self { ruleset })
    }

    /// In the child: no_new_privs, then the ruleset. Fails if it would not be enforced.
    pub fn restrict_self(self) -> io::Result<()> {
        match self.ruleset.restrict_self() {
            Ok(status) if status.ruleset != landlock::RulesetStatus::NotEnforced => Ok(()),
            // Raw errors: nothing may allocate between fork and exec.
            Ok(_) => Err(io::Error::from_raw_os_error(libc::EOPNOTSUPP)),
            Err(_) => Err(io::Error::from_raw_os_error(libc::EPERM)),
        }
    }
}
