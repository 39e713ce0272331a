#!/usr/bin/env bash
# Desktop benchmark: Paddock against the floor, a minimal Tauri 2 app on the same
# tauri/wry/WebKitGTK versions (bench/desktop-floor), both release builds under Xvfb, measured
# in the same run: spawn to page loaded, idle PSS per process (floor; Paddock with one and two
# project windows), Mesa/LLVM mapped or not; then a 10,000-event transcript's opening and the
# frame time at the end of a streamed 50,000-token answer, with the app's memory before and
# after that run. Prints figures and targets; not a pass/fail test.
#   PADDOCK_SKIP_SETUP=1 ...   skip scripts/setup.sh
#   CARGO_TARGET_DIR=...       honoured (default: target/)
#   scripts/bench-desktop.sh transcript stream   only these parts (start, memory, transcript,
#                              stream; default all)
#   BENCH_SMAPS_DIR=dir ...    keep each measured process's /proc/pid/smaps there (read them
#                              with scripts/smaps-diff.py)
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }
# shellcheck source=scripts/build-ui.sh
. "$(dirname "$0")/build-ui.sh"

[ "${PADDOCK_SKIP_SETUP:-}" = 1 ] || ./scripts/setup.sh
export CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}"
export PATH="$CARGO_HOME/bin:$PATH"
# One target dir for both workspaces, so the floor reuses the dependencies it shares.
target="${CARGO_TARGET_DIR:-target}"
case "$target" in /*) ;; *) target="$PWD/$target" ;; esac
export CARGO_TARGET_DIR="$target"
if ! command -v tauri-driver >/dev/null; then
  step "installing tauri-driver (about 3 min)"
  timeout 1200 cargo install tauri-driver --locked
fi

step "building the UI"
build_ui

step "building the app (release) and the benchmark driver"
timeout 3600 cargo build --locked --release -p paddock-desktop -p paddock-sandbox
timeout 1800 cargo build --locked -p paddock-desktop-e2e --bin desktop-bench

step "building the floor app (release, the main Cargo.lock's versions)"
# Cargo prunes the copied lock to the floor's dependencies and keeps their versions.
cp Cargo.lock bench/desktop-floor/Cargo.lock
(cd bench/desktop-floor && timeout 3600 cargo build --release)
stack() { cargo tree --locked -p tauri -p tauri-runtime-wry -p wry -p webkit2gtk --depth 0 |
  grep -v -e '^$' -e '^\[' | sort; }
main_stack=$(stack)
floor_stack=$(cd bench/desktop-floor && stack)
if [ "$main_stack" != "$floor_stack" ]; then
  printf "the floor app is not on Paddock's stack:\nPaddock:\n%s\nfloor:\n%s\n" \
    "$main_stack" "$floor_stack" >&2
  exit 1
fi
printf 'same stack: %s\n' "$(tr '\n' ' ' <<<"$main_stack")"

step "measuring (Xvfb, private D-Bus session)"
mkdir -p tests/artifacts
bench_home=$(mktemp -d)
trap 'rm -rf "$bench_home"' EXIT
HOME="$bench_home" PADDOCK_APP="$target/release/paddock-desktop" \
  PADDOCK_FLOOR_APP="$target/release/desktop-floor" BENCH_DRIVER="$target/debug/desktop-bench" \
  timeout 1800 xvfb-run -a -s "-screen 0 1280x800x24" \
  dbus-run-session -- sh -c '
    printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null
    exec "$BENCH_DRIVER" "$@"
  ' sh "$@"
