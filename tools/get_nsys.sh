#!/usr/bin/env bash
# get_nsys.sh - fetch NVIDIA Nsight Systems 2022.4 (`nsys`) from Debian 12's non-free package
# `nsight-systems-target` (2022.4.2.1~11.8.0-5~deb12u1) into NSYS_ROOT and print the path of
# its `nsys` on stdout (progress goes to stderr).
#
# Uses a PRIVATE apt configuration (the system's apt lists/cache/sources are not touched,
# nothing is installed) and unpacks the package with `dpkg -x`. Does nothing when NSYS_ROOT
# already holds it. The tool is never committed: it stays under /tmp.
#
# Usage: get_nsys.sh            (e.g. NSYS=$(tools/get_nsys.sh))
#        get_nsys.sh --importer (also the host package `nsight-systems` and libssh-4, unpacked
#                                into NSYS_HOST_ROOT; prints its QdstrmImporter, which turns the
#                                .qdstrm that the target package's `nsys profile` leaves into a
#                                .nsys-rep; 138 MB more download)
# Env:   WORK (default /tmp/nsys-apt), NSYS_ROOT (default /tmp/nsys-2022.4),
#        NSYS_HOST_ROOT (default /tmp/nsys-2022.4-host)
# Requires: Debian 12 (bookworm), root or write access to WORK, apt-get, dpkg.
# Shared by make_golden.sh and the .nsys-rep tests (tests/data/nsys_rep/README.md).
set -euo pipefail

WORK=${WORK:-/tmp/nsys-apt}
NSYS_ROOT=${NSYS_ROOT:-/tmp/nsys-2022.4}
NSYS_HOST_ROOT=${NSYS_HOST_ROOT:-/tmp/nsys-2022.4-host}
WANT_IMPORTER=0
[ "${1:-}" = "--importer" ] && WANT_IMPORTER=1
PKG=nsight-systems-target
PKG_VER=2022.4.2.1~11.8.0-5~deb12u1

NSYS="$NSYS_ROOT/usr/lib/x86_64-linux-gnu/nsight-systems/target-linux-x64/nsys"
IMPORTER="$NSYS_HOST_ROOT/usr/lib/nsight-systems/host-linux-x64/QdstrmImporter"
APT_READY=0
apt_setup() {
  [ "$APT_READY" = 1 ] && return 0
  mkdir -p "$WORK/sources.list.d" "$WORK/lists/partial" "$WORK/cache/archives/partial"
  rm -f "$WORK"/sources.list.d/*
  # Copy the machine's Debian sources, adding contrib/non-free components.
  n=0
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    grep -qi 'debian' "$f" || continue
    sed -E 's/^(Components:).*/\1 main contrib non-free non-free-firmware/' "$f" \
      > "$WORK/sources.list.d/$(basename "$f")"
    n=$((n + 1))
  done
  if [ -s /etc/apt/sources.list ] && grep -qE '^deb .*debian' /etc/apt/sources.list; then
    grep -E '^deb .*debian' /etc/apt/sources.list |
      sed -E 's/[[:space:]]+main([[:space:]].*)?$/ main contrib non-free non-free-firmware/' \
      > "$WORK/sources.list.d/system.list"
    n=$((n + 1))
  fi
  if [ "$n" -eq 0 ]; then
    cat > "$WORK/sources.list.d/bookworm.list" <<'LIST'
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main contrib non-free non-free-firmware
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm-updates main contrib non-free non-free-firmware
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security bookworm-security main contrib non-free non-free-firmware
LIST
  fi
  APT_OPTS=(
    -o Dir::Etc::SourceList=/dev/null
    -o Dir::Etc::SourceParts="$WORK/sources.list.d"
    -o Dir::State::Lists="$WORK/lists"
    -o Dir::Cache="$WORK/cache"
    -o APT::Sandbox::User=root
  )
  apt_retry() {  # retry while another apt holds a lock
    local i
    for i in $(seq 1 30); do
      if "$@" 2> "$WORK/apt.err"; then cat "$WORK/apt.err"; return 0; fi
      cat "$WORK/apt.err"
      grep -qiE 'lock' "$WORK/apt.err" || return 1
      echo "apt lock busy, retrying in 10s ($i/30)"; sleep 10
    done
    return 1
  }
  apt_retry apt-get "${APT_OPTS[@]}" -q update
  APT_READY=1
}
# download_unpack PACKAGE VERSION ROOT: the package's .deb (that version, else the newest) into ROOT.
download_unpack() {
  local pkg=$1 ver=$2 root=$3 deb
  (cd "$WORK/cache/archives" &&
    { { [ -n "$ver" ] && apt_retry apt-get "${APT_OPTS[@]}" -q download "$pkg=$ver"; } ||
      apt_retry apt-get "${APT_OPTS[@]}" -q download "$pkg"; })
  deb=$(ls -t "$WORK"/cache/archives/${pkg}_*.deb | head -n1)
  mkdir -p "$root"
  dpkg -x "$deb" "$root"
}

if [ ! -x "$NSYS" ]; then
  {
    apt_setup
    rm -rf "$NSYS_ROOT"
    download_unpack "$PKG" "$PKG_VER" "$NSYS_ROOT"
  } >&2
fi
if [ "$WANT_IMPORTER" = 1 ] && [ ! -x "$IMPORTER" ]; then
  {
    apt_setup
    rm -rf "$NSYS_HOST_ROOT"
    download_unpack nsight-systems "$PKG_VER" "$NSYS_HOST_ROOT"
    download_unpack libssh-4 "" "$NSYS_HOST_ROOT"   # host-linux-x64/libssh.so links to ../../x86_64-linux-gnu/libssh.so.4
  } >&2
fi
[ -x "$NSYS" ] || { echo "get_nsys.sh: no nsys at $NSYS" >&2; exit 1; }
if [ "$WANT_IMPORTER" = 1 ]; then
  [ -x "$IMPORTER" ] || { echo "get_nsys.sh: no QdstrmImporter at $IMPORTER" >&2; exit 1; }
  echo "$IMPORTER"
else
  echo "$NSYS"
fi
