//! `paddock-sandbox-helper --policy JSON -- PROGRAM ARGS...`: builds the wall the policy
//! describes around itself, then becomes the program. Started by Paddock, not by people.

fn main() {
    #[cfg(target_os = "linux")]
    {
        let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
        std::process::exit(paddock_sandbox::helper::main(&args));
    }
    #[cfg(not(target_os = "linux"))]
    {
        eprintln!("the Paddock sandbox helper runs on Linux only");
        std::process::exit(2);
    }
}
