#!/usr/bin/env bash
# Desktop benchmark: cold start to first paint, idle memory with one project open, and the
# time to open a 10,000-event transcript, on the release build of the app under Xvfb.
# Prints the figures (targets: <= 400 ms, <= 80 MB, <= 300 ms). Not a pass/fail test.
#   PADDOCK_SKIP_SETUP=1 ...   skip scripts/setup.sh
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }
# shellcheck source=scripts/build-ui.sh
. "$(dirname "$0")/build-ui.sh"

[ "${PADDOCK_SKIP_SETUP:-}" = 1 ] || ./scripts/setup.sh
export CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}"
export PATH="$CARGO_HOME/bin:$PATH"
if ! command -v tauri-driver >/dev/null; then
  step "installing tauri-driver (about 3 min)"
  timeout 1200 cargo install tauri-driver --locked
fi

step "building the UI"
build_ui

step "building the app (release) and the benchmark driver"
timeout 3600 cargo build --locked --release -p paddock-desktop -p paddock-sandbox
timeout 1800 cargo build --locked -p paddock-desktop-e2e --bin desktop-bench

step "measuring (Xvfb, private D-Bus session)"
mkdir -p tests/artifacts
bench_home=$(mktemp -d)
trap 'rm -rf "$bench_home"' EXIT
HOME="$bench_home" PADDOCK_APP="$PWD/target/release/paddock-desktop" timeout 900 \
  xvfb-run -a -s "-screen 0 1280x800x24" \
  dbus-run-session -- sh -c '
    printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null
    exec target/debug/desktop-bench
  '
