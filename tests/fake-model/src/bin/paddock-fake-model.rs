//! Runs the fake model server as a process, for end-to-end tests of the CLI and the app.
//!
//! `paddock-fake-model [--script FILE] [--port N] [--port-file FILE]`
//!
//! Prints the base URL (`http://127.0.0.1:PORT`) as the first line of stdout once it is
//! listening, and serves until killed or until its stdin is closed when `--stdin` is given.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use paddock_fake_model::{FakeServer, Script};
use tokio::io::AsyncReadExt;

struct Args {
    script: Option<PathBuf>,
    port: u16,
    port_file: Option<PathBuf>,
    stdin: bool,
}

const USAGE: &str = "usage: paddock-fake-model [--script FILE] [--port N] [--port-file FILE] [--stdin]\n\
    --script FILE     JSON script to load (see tests/fake-model/README.md)\n\
    --port N          port on 127.0.0.1 (default 0: any free port)\n\
    --port-file FILE  also write the chosen port to FILE\n\
    --stdin           exit when standard input closes (tie the server to its parent)";

fn parse(mut argv: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut args = Args {
        script: None,
        port: 0,
        port_file: None,
        stdin: false,
    };
    while let Some(flag) = argv.next() {
        let mut value = || argv.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--script" => args.script = Some(PathBuf::from(value()?)),
            "--port" => {
                let v = value()?;
                args.port = v.parse().map_err(|_| format!("bad port '{v}'"))?;
            }
            "--port-file" => args.port_file = Some(PathBuf::from(value()?)),
            "--stdin" => args.stdin = true,
            "-h" | "--help" => return Err(USAGE.to_owned()),
            other => return Err(format!("unknown argument '{other}'\n{USAGE}")),
        }
    }
    Ok(args)
}

fn load(path: &PathBuf) -> Result<Script, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text)
        .map_err(|e| format!("{} is not a valid script: {e}", path.display()))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("paddock-fake-model: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), String> {
    let args = parse(std::env::args().skip(1))?;
    let script = match &args.script {
        Some(path) => load(path)?,
        None => Script::default(),
    };
    let addr = SocketAddr::from(([127, 0, 0, 1], args.port));
    let server = FakeServer::start_with(addr, script)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    if let Some(path) = &args.port_file {
        std::fs::write(path, server.addr().port().to_string())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    println!("{}", server.url());
    if args.stdin {
        let mut sink = Vec::new();
        // Any read error means the parent is gone too.
        let _ = tokio::io::stdin().read_to_end(&mut sink).await;
    } else {
        tokio::signal::ctrl_c()
            .await
            .map_err(|e| format!("cannot wait for ctrl-c: {e}"))?;
    }
    drop(server);
    Ok(())
}
