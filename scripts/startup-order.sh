#!/usr/bin/env bash
# Records which of Paddock's functions run while it starts and opens a project, into
# src-tauri/startup-order.txt; release builds link those functions side by side (see
# src-tauri/build.rs), so a project window keeps 3.5 MB of its code resident instead of 5.6.
# Run it after a dependency update or a large change, when scripts/bench-desktop.sh reports
# that few of the recorded names are left in the binary. Takes ~5 minutes after the build.
#   PADDOCK_SKIP_SETUP=1 ...   skip scripts/setup.sh
#   CARGO_TARGET_DIR=...       honoured (default: target/)
# How: the release app runs under valgrind's callgrind in Xvfb, in a home like the desktop
# benchmark's (tests/desktop's bench-home: a trusted project with settings and a session);
# xdotool types the project's path into the picker; the functions callgrind saw in the binary
# are the list.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }
# shellcheck source=scripts/build-ui.sh
. "$(dirname "$0")/build-ui.sh"

[ "${PADDOCK_SKIP_SETUP:-}" = 1 ] || ./scripts/setup.sh
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
missing=()
for tool in valgrind xdotool; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi
target="${CARGO_TARGET_DIR:-target}"

step "building the UI, the app (release) and bench-home"
build_ui
timeout 3600 cargo build --locked --release -p paddock-desktop
timeout 1800 cargo build --locked -p paddock-desktop-e2e --bin bench-home
app="$target/release/paddock-desktop"

step "recording (callgrind under Xvfb; the app runs ~50 times slower)"
work=$(mktemp -d)
"$target/debug/bench-home" >"$work/home.sh"
# shellcheck disable=SC1091
. "$work/home.sh"
trap 'rm -rf "$work" "$HOME"' EXIT
timeout 900 xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- sh -c '
  printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null
  valgrind --tool=callgrind --dump-instr=no --demangle=no --callgrind-out-file="$2/callgrind.out" \
    "$1" >"$2/app.log" 2>&1 &
  app=$!
  waited=0
  until window=$(xdotool search --onlyvisible --name "^Paddock" 2>/dev/null | head -n 1) &&
    [ -n "$window" ]; do
    waited=$((waited + 1)); [ $waited -lt 180 ] || { echo "no picker window" >&2; exit 1; }
    sleep 1
  done
  sleep 40 # the page loads slowly under callgrind
  xdotool windowactivate --sync "$window" 2>/dev/null || true
  xdotool windowfocus --sync "$window"
  xdotool key --clearmodifiers Tab
  sleep 2
  xdotool type --delay 50 "$3"
  sleep 2
  xdotool key Return
  waited=0
  until xdotool search --onlyvisible --name "^demo" >/dev/null 2>&1; do
    waited=$((waited + 1)); [ $waited -lt 180 ] || { echo "the project did not open" >&2; exit 1; }
    sleep 1
  done
  sleep 60 # the project window settles: sessions, workspace, watcher
  kill -TERM "$app"
  wait "$app"
' sh "$app" "$work" "$PROJECT"

step "writing src-tauri/startup-order.txt"
# callgrind names each function once with "fn=(id) name" (or "cfn=" when first seen as a
# callee); later mentions carry the id alone. Keep the binary's functions, without callgrind's
# "'2" suffix for a second copy and without bare addresses.
awk -v bin="$(basename "$app")" '
  function named(spec, table,   id, rest) {
    if (match(spec, /^\([0-9]+\)/)) {
      id = substr(spec, 2, RLENGTH - 2); rest = substr(spec, RLENGTH + 2)
      if (rest != "") table[id] = rest
      return table[id]
    }
    return spec
  }
  function keep(name) {
    sub(/'"'"'[0-9]+$/, "", name)
    if (name !~ /^0x/ && !(name in seen)) { seen[name] = 1; print name }
  }
  /^ob=/  { ob = named(substr($0, 4), obs) }
  /^cob=/ { cob = named(substr($0, 5), obs) }
  /^fn=/  { f = named(substr($0, 4), fns); if (ob ~ ("/" bin "$")) keep(f) }
  /^cfn=/ {
    f = named(substr($0, 5), fns)
    if ((cob != "" ? cob : ob) ~ ("/" bin "$")) keep(f)
    cob = ""
  }
' "$work/callgrind.out" >"$work/order.txt"
count=$(wc -l <"$work/order.txt")
if [ "$count" -lt 200 ]; then
  echo "only $count functions recorded: something went wrong (see $work/app.log)" >&2
  trap - EXIT
  exit 1
fi
mv "$work/order.txt" src-tauri/startup-order.txt
echo "$count functions; rebuild the app (release) to use them"
