#!/usr/bin/env bash
# Builds an AppImage without the AppImage project's downloads (GitHub is out of reach here):
# Paddock's own runtime (packaging/appimage/runtime.c, linked statically against Debian's
# squashfuse and libfuse3) followed by a squashfs image of an AppDir (mksquashfs).
#
#   scripts/appimage.sh runtime OUT              compile the runtime to OUT
#   scripts/appimage.sh pack RUNTIME APPDIR OUT  RUNTIME + squashfs(APPDIR) -> OUT (executable)
#
# Needs: a C compiler, libsquashfuse-dev, libfuse3-dev, libzstd-dev, zlib1g-dev, liblzma-dev,
# liblz4-dev, liblzo2-dev, squashfs-tools (scripts/setup.sh installs them).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

compile_runtime() {
  local out=$1
  mkdir -p "$(dirname "$out")"
  # shellcheck disable=SC2046
  cc -O2 -Wall -Wextra -Werror $(pkg-config --cflags squashfuse_ll) \
    -o "$out" "$here/packaging/appimage/runtime.c" \
    -Wl,-Bstatic -lsquashfuse_ll -lsquashfuse -lfuse3 -lzstd -lz -llzma -llz4 -llzo2 \
    -Wl,-Bdynamic -lpthread
  strip "$out"
  # A type-2 AppImage says so at byte 8 of its ELF header (padding the loader ignores).
  printf 'AI\002' | dd of="$out" bs=1 seek=8 conv=notrunc status=none
  local size offset
  size=$(stat -c %s "$out")
  offset=$("$out" --appimage-offset)
  if [ "$size" != "$offset" ]; then
    echo "appimage.sh: the runtime reads its image at $offset, but it is $size bytes long" >&2
    return 1
  fi
}

pack() {
  local runtime=$1 appdir=$2 out=$3
  [ -x "$appdir/AppRun" ] || [ -L "$appdir/AppRun" ] || {
    echo "appimage.sh: $appdir has no AppRun" >&2
    return 1
  }
  local image
  image=$(mktemp "${out}.squashfs.XXXXXX")
  # zstd: the smallest and fastest to mount of the compressors squashfuse reads.
  mksquashfs "$appdir" "$image" -quiet -noappend -comp zstd -root-owned -no-xattrs \
    -processors "$(nproc)" >/dev/null
  cat "$runtime" "$image" >"$out"
  rm -f "$image"
  chmod 0755 "$out"
}

case "${1:-}" in
  runtime) compile_runtime "$2" ;;
  pack) pack "$2" "$3" "$4" ;;
  *)
    echo "usage: $0 runtime OUT | pack RUNTIME APPDIR OUT" >&2
    exit 2
    ;;
esac
