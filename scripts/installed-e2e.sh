#!/usr/bin/env bash
# The installed package is what these tests run. Builds the packages (scripts/package.sh;
# debug profile unless PADDOCK_PACKAGE_PROFILE=release) with a throwaway updater key pair,
# installs the .deb with apt (dependencies resolved), checks `paddock --version` and
# `paddock doctor`, drives the installed /usr/bin/paddock-desktop over WebDriver (a prompt's
# bash runs behind the wall from the installed helper) and the AppImage's updater against a
# local server, then uninstalls and checks that no file of the package is left while the
# user's data stays. Needs root (apt) and FUSE (the AppImage).
#
#   scripts/installed-e2e.sh            everything
#   PADDOCK_SKIP_SETUP=1 ...            skip scripts/setup.sh (when the caller ran it)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

step() { printf '\n==> %s\n' "$*"; }
fail() {
  echo "installed-e2e: $*" >&2
  exit 1
}

[ "${PADDOCK_SKIP_SETUP:-}" = 1 ] || ./scripts/setup.sh
export CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}"
export PATH="$CARGO_HOME/bin:$PATH"
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"

work=$(mktemp -d)
cleanup() {
  if dpkg -s paddock >/dev/null 2>&1 && [ -z "${uninstalled:-}" ]; then
    $sudo apt-get remove --purge -y -qq paddock >/dev/null 2>&1 || true
  fi
  if [ -n "${made_marker:-}" ]; then $sudo rm -f "$apparmor_marker"; fi
  rm -rf "$work"
}
trap cleanup EXIT

step "a throwaway updater key pair (and a second one, the wrong key)"
if [ ! -x packaging/node_modules/.bin/tauri ]; then
  timeout 600 npm ci --prefix packaging --no-audit --no-fund --loglevel=error
fi
mkdir -p "$work/keys"
for name in updater other; do
  packaging/node_modules/.bin/tauri signer generate --ci -p paddock-test \
    -w "$work/keys/$name.key" >/dev/null
done

profile_flag=(--debug)
[ "${PADDOCK_PACKAGE_PROFILE:-debug}" = release ] && profile_flag=()
PADDOCK_SKIP_SETUP=1 PADDOCK_UPDATER_PUBKEY=$(cat "$work/keys/updater.key.pub") \
  TAURI_SIGNING_PRIVATE_KEY_PATH="$work/keys/updater.key" \
  TAURI_SIGNING_PRIVATE_KEY_PASSWORD=paddock-test \
  ./scripts/package.sh "${profile_flag[@]}"
packages="$(cargo metadata --format-version 1 --no-deps --locked |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/packages"
version=$(cargo metadata --format-version 1 --no-deps --locked | python3 -c '
import json, sys
print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "paddock-desktop"))')
deb="$packages/Paddock_${version}_amd64.deb"

step "installing $(basename "$deb") with apt"
# The package puts the helper's AppArmor profile in place where AppArmor 4 is (it knows the
# profile's `userns` rule). This machine's is older or absent: a stand-in for AppArmor 4's
# marker lets the install scripts' path run; loading needs AppArmor in the kernel, which
# these machines lack (doctor's reading of that state is tested in paddock-sandbox).
apparmor_marker=/etc/apparmor.d/abi/4.0
if [ ! -e "$apparmor_marker" ]; then
  $sudo mkdir -p "$(dirname "$apparmor_marker")"
  $sudo touch "$apparmor_marker"
  made_marker=1
fi
if dpkg -s paddock >/dev/null 2>&1; then
  $sudo apt-get remove --purge -y -qq paddock >/dev/null
fi
started=$(date +%s%N)
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$deb" >"$work/apt.log" 2>&1 ||
  { cat "$work/apt.log"; fail "apt could not install $deb"; }
echo "installed in $(((($(date +%s%N) - started) / 1000000))) ms"
dpkg -L paddock | while read -r f; do
  if [ -f "$f" ] || [ -L "$f" ]; then echo "$f"; fi
done >"$work/files"
echo "$(wc -l <"$work/files") files, e.g. $(grep -c '^/usr/bin/' "$work/files") in /usr/bin"
profile=/etc/apparmor.d/paddock-sandbox-helper
cmp -s /usr/share/paddock/apparmor/paddock-sandbox-helper "$profile" ||
  fail "the install did not put the helper's AppArmor profile at $profile"
grep -q '^profile paddock-sandbox-helper /usr/bin/paddock-sandbox-helper ' "$profile" ||
  fail "$profile is not attached to the installed helper"
[ -x /usr/bin/paddock-sandbox-helper ] || fail "the helper is not where the profile attaches"
echo "the helper's AppArmor profile is at $profile"

step "paddock --version and paddock doctor (the installed CLI)"
[ "$(command -v paddock)" = /usr/bin/paddock ] || fail "paddock on PATH is $(command -v paddock)"
got=$(paddock --version)
[ "$got" = "paddock $version" ] || fail "paddock --version says '$got', the package is $version"
echo "$got"
# A user's project and home as the installed program sees them; doctor exits 1 here, as
# nothing answers at the settings' model address.
project="$work/project"
mkdir -p "$project/.paddock"
printf '{"version": 1, "provider": "openai-compatible", "baseUrl": "http://127.0.0.1:9/v1", "model": "m"}\n' \
  >"$project/.paddock/settings.json"
userhome="$work/home"
mkdir -p "$userhome"
as_user() {
  (cd "$project" && env -u PADDOCK_DATA_DIR -u PADDOCK_CONFIG_DIR HOME="$userhome" \
    XDG_CONFIG_HOME="$userhome/.config" XDG_DATA_HOME="$userhome/.local/share" "$@")
}
doctor=$(as_user paddock doctor 2>&1 || true)
echo "$doctor" | sed -n '/sandbox/,/bash may/p'
echo "$doctor" | grep -q 'sandbox.*bubblewrap.*every protection enforced' ||
  fail "paddock doctor does not report bubblewrap with every protection enforced"
if echo "$doctor" | grep -E '^\s+(writes|secrets|host sockets|network|process lifetime|terminal): (partial|absent)'; then
  fail "a protection is not enforced"
fi

step "WebDriver specs against the installed app (and the AppImage's updater)"
if ! command -v tauri-driver >/dev/null; then
  timeout 1200 cargo install tauri-driver --locked
fi
timeout 1800 cargo test --locked -p paddock-desktop-e2e --test installed --no-run
test_home=$(mktemp -d -p "$work")
artifacts="$root/tests/artifacts"
mkdir -p "$artifacts"
HOME="$test_home" PADDOCK_APP=/usr/bin/paddock-desktop PADDOCK_PACKAGES="$packages" \
  PADDOCK_UPDATER_KEYS="$work/keys" timeout 1200 \
  xvfb-run -a -s "-screen 0 1280x800x24" \
  dbus-run-session -- sh -c '
    printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null
    exec cargo test --locked -p paddock-desktop-e2e --test installed -- --ignored --test-threads=1
  '

step "uninstalling: no file of the package left, the user's data kept"
# The user's data: what `paddock trust` wrote for this user (config), as a session would.
as_user paddock trust --yes >/dev/null
userdata=$(find "$userhome" -type f | head -n 50)
[ -n "$userdata" ] || fail "the installed CLI wrote no user data to keep"
$sudo apt-get remove --purge -y -qq paddock >/dev/null
uninstalled=1
left=0
while read -r f; do
  if [ -e "$f" ] || [ -L "$f" ]; then
    echo "left behind: $f" >&2
    left=1
  fi
done <"$work/files"
[ -e /etc/apparmor.d/paddock-sandbox-helper ] && { echo "left behind: /etc/apparmor.d/paddock-sandbox-helper" >&2; left=1; }
[ "$left" = 0 ] || fail "files of the package are left after apt-get remove --purge"
for f in $userdata; do [ -f "$f" ] || fail "the user's $f went with the package"; done
echo "all $(wc -l <"$work/files") files gone; the user's data kept: ${userdata//$userhome/\~}"

echo
echo "installed-package tests passed"
