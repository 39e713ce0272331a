#!/usr/bin/env python3
"""AppArmor 4's parser for the tests, on a machine whose own is older.

Debian 12 ships AppArmor 3.0, whose parser does not know the `userns` rule Paddock's profile
is made of (Ubuntu 24.04 ships 4.0). This fetches Debian 13's `apparmor` package and the C
library it needs, each checked against Debian's signed release file (gpgv with the archive
keyring apt itself trusts), unpacks them into a cache folder and writes a wrapper that runs
that parser with that library. Prints the wrapper's path (or the system's own parser's,
where that is AppArmor 4 already).

    scripts/apparmor-parser.py            the wrapper, fetched when missing
"""
import hashlib
import lzma
import os
import subprocess
import sys
import tempfile
import urllib.request

MIRROR = "http://deb.debian.org/debian"
SUITE = "trixie"
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
PACKAGES = ["apparmor", "libc6"]
CACHE = os.path.join(os.path.expanduser("~"), ".cache", "paddock-apparmor")


def fetch(url):
    with urllib.request.urlopen(url, timeout=120) as response:
        return response.read()


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def wrapper_text(root):
    loader = f"{root}/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
    return (
        "#!/bin/sh\n"
        "# AppArmor 4's parser from Debian 13, run with its own C library (scripts/apparmor-parser.py)\n"
        f'exec "{loader}" --library-path "{root}/usr/lib/x86_64-linux-gnu" '
        f'"{root}/usr/sbin/apparmor_parser" --config-file="{root}/etc/apparmor/parser.conf" '
        f'--base "{root}/etc/apparmor.d" -I "{root}/etc/apparmor.d" "$@"\n'
    )


def works(wrapper):
    try:
        out = subprocess.run([wrapper, "--version"], capture_output=True, text=True, timeout=30)
    except OSError:
        return False
    return out.returncode == 0 and "version 4." in out.stdout


def system_parser():
    """The system's own parser when it is AppArmor 4 (Ubuntu 24.04 and later)."""
    for path in ["/usr/sbin/apparmor_parser", "/sbin/apparmor_parser"]:
        if os.access(path, os.X_OK) and works(path):
            return path
    return None


def main():
    own = system_parser()
    if own:
        print(own)
        return 0
    wrapper = os.path.join(CACHE, "apparmor_parser")
    if works(wrapper):
        print(wrapper)
        return 0
    if not os.path.exists(KEYRING):
        sys.exit(f"apparmor-parser: no AppArmor 4 parser here, and no {KEYRING} to check Debian's "
                 "packages with: install debian-archive-keyring (or AppArmor 4)")
    os.makedirs(CACHE, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as work:
        release = os.path.join(work, "InRelease")
        with open(release, "wb") as f:
            f.write(fetch(f"{MIRROR}/dists/{SUITE}/InRelease"))
        checked = subprocess.run(
            ["gpgv", "--keyring", KEYRING, "--output", "-", release],
            capture_output=True,
        )
        if checked.returncode != 0:
            sys.exit(f"apparmor-parser: {SUITE}'s release file is not signed by a Debian key:\n"
                     + checked.stderr.decode(errors="replace"))
        index_name = "main/binary-amd64/Packages.xz"
        want = None
        for line in checked.stdout.decode().splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[2] == index_name and len(parts[0]) == 64:
                want = parts[0]
        if want is None:
            sys.exit(f"apparmor-parser: {index_name} is not listed in {SUITE}'s release file")
        index = fetch(f"{MIRROR}/dists/{SUITE}/{index_name}")
        if sha256(index) != want:
            sys.exit(f"apparmor-parser: {index_name} does not match its signed checksum")
        found = {}
        for para in lzma.decompress(index).decode().split("\n\n"):
            fields = dict(
                line.split(": ", 1) for line in para.splitlines() if ": " in line and not line.startswith(" ")
            )
            if fields.get("Package") in PACKAGES and fields.get("Architecture") == "amd64":
                found[fields["Package"]] = (fields["Filename"], fields["SHA256"])
        root = os.path.join(CACHE, "root")
        subprocess.run(["rm", "-rf", root], check=True)
        os.makedirs(root)
        for name in PACKAGES:
            if name not in found:
                sys.exit(f"apparmor-parser: {SUITE} has no package {name}")
            filename, digest = found[name]
            deb = fetch(f"{MIRROR}/{filename}")
            if sha256(deb) != digest:
                sys.exit(f"apparmor-parser: {filename} does not match its signed checksum")
            path = os.path.join(work, os.path.basename(filename))
            with open(path, "wb") as f:
                f.write(deb)
            subprocess.run(["dpkg-deb", "-x", path, root], check=True)
        with open(wrapper, "w") as f:
            f.write(wrapper_text(root))
        os.chmod(wrapper, 0o755)
    if not works(wrapper):
        sys.exit("apparmor-parser: the fetched parser does not run here")
    print(wrapper)
    return 0


if __name__ == "__main__":
    sys.exit(main())
