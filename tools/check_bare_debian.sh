#!/usr/bin/env bash
# Runs the README's test command as a new user would: on a bare Debian 12 root made with
# debootstrap (minbase: no compiler, no Qt, nothing of ours), from a clean clone of HEAD, with
# ../shared beside it. Needs root, debootstrap and the Debian mirror; takes about 8 minutes on
# 2 cores. Not part of the suite (the install_list test checks the list on every run instead).
#   sudo tools/check_bare_debian.sh [WORK_DIR]      (default /tmp/layerscope-bare)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ "$(id -u)" -eq 0 ] || { echo "error: run as root (debootstrap and chroot)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "error: apt-get install debootstrap" >&2; exit 2; }
work=${1:-/tmp/layerscope-bare}
root=$work/root
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

cleanup() { for m in tmp/.X11-unix dev/shm dev/pts dev proc sys; do umount "$root/$m" 2>/dev/null || true; done; }
trap cleanup EXIT
cleanup
rm -rf "$root"
mkdir -p "$work"
echo "debootstrap bookworm into $root"
debootstrap --variant=minbase bookworm "$root" "$mirror" > "$work/debootstrap.log"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
mount -t tmpfs tmpfs "$root/dev/shm"
mount --bind /sys "$root/sys"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root/work"
git clone -q . "$root/work/main"
[ -d ../shared ] && cp -a ../shared "$root/work/shared"
start=$(date +%s)
status=0
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root CI=true \
    /bin/bash -c 'cd /work/main && tools/setup.sh test' > "$work/setup-test.log" 2>&1 || status=$?
echo "tools/setup.sh test: exit $status after $(( $(date +%s) - start )) s (log: $work/setup-test.log)"
tail -n 4 "$work/setup-test.log"
exit "$status"
