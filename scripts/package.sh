#!/usr/bin/env bash
# Builds Paddock's packages into one folder and prints their paths and sizes: a .deb and an
# .rpm (the Tauri bundler) and an AppImage (scripts/appimage.sh, from the .deb's files). Each
# carries the app (/usr/bin/paddock-desktop), the `paddock` CLI (/usr/bin/paddock), the
# sandbox helper beside the app, icons, a .desktop entry and AppStream metainfo.
#
#   scripts/package.sh               release bundles (fat LTO: the first build ~8-15 min on 2 cores)
#   scripts/package.sh --debug       debug-profile bundles (what CI installs and tests)
#   PADDOCK_SKIP_SETUP=1 ...         skip scripts/setup.sh (when the caller ran it)
#
# Updates (see README, "Install"): the key pair comes from the environment, never the
# repository.
#   PADDOCK_UPDATER_PUBKEY             the public key built into the app (`tauri signer
#                                      generate` writes it to KEY.pub); without it the app
#                                      never looks for updates
#   TAURI_SIGNING_PRIVATE_KEY[_PATH]   signs each bundle (FILE.sig) and writes latest.json;
#   TAURI_SIGNING_PRIVATE_KEY_PASSWORD its password
#   PADDOCK_UPDATE_ENDPOINT            the update manifest's URL built into the app
#   PADDOCK_DOWNLOAD_BASE              where latest.json says the AppImage will be served
#   PADDOCK_RELEASE_NOTES              what changed, for latest.json (the app shows it)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

step() { printf '\n==> %s\n' "$*"; }
# shellcheck source=scripts/build-ui.sh
. "$root/scripts/build-ui.sh"

profile=release
cargo_flags=(--release)
bundle_flags=()
for arg in "$@"; do
  case "$arg" in
    --debug)
      profile=debug
      cargo_flags=()
      bundle_flags=(--debug)
      ;;
    *)
      echo "usage: $0 [--debug]" >&2
      exit 2
      ;;
  esac
done

[ "${PADDOCK_SKIP_SETUP:-}" = 1 ] || ./scripts/setup.sh
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
started=$(date +%s)

step "building the UI"
build_ui

step "the Tauri CLI (npm, pinned in packaging/package.json)"
if [ ! -x packaging/node_modules/.bin/tauri ] ||
  [ packaging/package-lock.json -nt packaging/node_modules ]; then
  timeout 600 npm ci --prefix packaging --no-audit --no-fund --loglevel=error
  touch packaging/node_modules
fi
tauri="$root/packaging/node_modules/.bin/tauri"

meta=$(cargo metadata --format-version 1 --no-deps --locked)
read -r target_dir version < <(printf '%s' "$meta" | python3 -c '
import json, sys
m = json.load(sys.stdin)
v = next(p["version"] for p in m["packages"] if p["name"] == "paddock-desktop")
print(m["target_directory"], v)')
triple=$(rustc -vV | sed -n 's/^host: //p')
bin_dir="$target_dir/$profile"
work="$target_dir/package-$profile"
out="$target_dir/packages"
rm -rf "$work" "$out"
mkdir -p "$work/bin" "$out"

# What the app is compiled with (tauri-build reads TAURI_CONFIG as a patch of tauri.conf.json):
# the updater's public key and manifest URL.
pubkey=${PADDOCK_UPDATER_PUBKEY:-}
endpoint=${PADDOCK_UPDATE_ENDPOINT:-}
TAURI_CONFIG=$(PUBKEY="$pubkey" ENDPOINT="$endpoint" python3 -c '
import json, os
updater = {"pubkey": os.environ["PUBKEY"]}
if os.environ["ENDPOINT"]:
    updater["endpoints"] = [os.environ["ENDPOINT"]]
print(json.dumps({"plugins": {"updater": updater}}))')
export TAURI_CONFIG

step "building the app, the CLI and the sandbox helper ($profile)"
timeout 3600 cargo build --locked "${cargo_flags[@]}" -p paddock-desktop -p paddock-cli -p paddock-sandbox

# The helper is the app's external binary: the bundler takes NAME-<target triple> and installs
# it as NAME beside the app. The metainfo gets this version as its release.
cp "$bin_dir/paddock-sandbox-helper" "$work/bin/paddock-sandbox-helper-$triple"
metainfo="$work/dev.paddock.app.metainfo.xml"
sed "s|</component>|  <releases>\n    <release version=\"$version\" date=\"$(date -u +%F)\"/>\n  </releases>\n</component>|" \
  packaging/dev.paddock.app.metainfo.xml >"$metainfo"
overlay="$work/tauri.package.json"
BIN="$work/bin/paddock-sandbox-helper" CLI="$bin_dir/paddock" META="$metainfo" python3 -c '
import json, os
files = {"/usr/bin/paddock": os.environ["CLI"],
         "/usr/share/metainfo/dev.paddock.app.metainfo.xml": os.environ["META"]}
print(json.dumps({"bundle": {"active": True, "externalBin": [os.environ["BIN"]],
    "linux": {"deb": {"files": files}, "rpm": {"files": files}}}}))' >"$overlay"

step "bundling .deb and .rpm (Tauri bundler $("$tauri" --version | awk '{print $2}'))"
(cd src-tauri && timeout 1800 "$tauri" bundle "${bundle_flags[@]}" --bundles deb,rpm \
  --config "$overlay" --ci)
bundle_dir="$bin_dir/bundle"
deb="$bundle_dir/deb/Paddock_${version}_amd64.deb"
rpm="$bundle_dir/rpm/Paddock-${version}-1.x86_64.rpm"
cp "$deb" "$rpm" "$out/"

step "building the AppImage (Paddock's runtime + squashfs of the .deb's files)"
# The bundler's own AppImage step downloads linuxdeploy and the AppImage runtime from GitHub,
# out of reach here: scripts/appimage.sh builds the runtime from Debian's squashfuse instead.
appdir="$work/Paddock.AppDir"
mkdir -p "$appdir"
dpkg-deb -x "$deb" "$appdir"
# The bundler marked the .deb's binary as a .deb install (and put the built one back as it
# was); this one is an AppImage, marked the way the bundler marks its own.
python3 - "$bin_dir/paddock-desktop" "$appdir/usr/bin/paddock-desktop" <<'PY'
import sys
built, dest = sys.argv[1], sys.argv[2]
data = open(built, "rb").read()
old, new = b"__TAURI_BUNDLE_TYPE_VAR_UNK", b"__TAURI_BUNDLE_TYPE_VAR_APP"
if data.count(old) != 1:
    sys.exit(f"{built}: expected one unmarked bundle type, found {data.count(old)}")
open(dest, "wb").write(data.replace(old, new))
PY
rm -rf "$appdir/usr/share/doc"
ln -s usr/bin/paddock-desktop "$appdir/AppRun"
cp "$appdir/usr/share/applications/Paddock.desktop" "$appdir/Paddock.desktop"
cp icons/256x256.png "$appdir/paddock-desktop.png"
ln -s paddock-desktop.png "$appdir/.DirIcon"
scripts/appimage.sh runtime "$work/runtime"
appimage="$out/Paddock_${version}_amd64.AppImage"
scripts/appimage.sh pack "$work/runtime" "$appdir" "$appimage"
cp "$work/runtime" "$out/appimage-runtime"

if [ -n "${TAURI_SIGNING_PRIVATE_KEY:-}${TAURI_SIGNING_PRIVATE_KEY_PATH:-}" ]; then
  step "signing (minisign, bound to version $version)"
  for f in "$out"/*.deb "$out"/*.rpm "$appimage"; do
    "$tauri" signer sign --app-version "$version" "$f" >/dev/null
  done
  base=${PADDOCK_DOWNLOAD_BASE:-https://example.invalid/paddock/releases/$version}
  VERSION="$version" NOTES="${PADDOCK_RELEASE_NOTES:-}" URL="$base/$(basename "$appimage")" \
    SIG="$appimage.sig" python3 -c '
import datetime, json, os
entry = {"signature": open(os.environ["SIG"]).read(), "url": os.environ["URL"]}
print(json.dumps({"version": os.environ["VERSION"], "notes": os.environ["NOTES"],
    "pub_date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "platforms": {"linux-x86_64-appimage": entry}}, indent=2))' >"$out/latest.json"
fi
rm -rf "$work"

step "packages ($profile, version $version, $(($(date +%s) - started)) s)"
for f in "$out"/*.deb "$out"/*.rpm "$out"/*.AppImage; do
  printf '%8s  %s\n' "$(du -h --apparent-size "$f" | cut -f1)" "$f"
done
