#!/usr/bin/env bash
# Proves that tools/setup.sh's package list is enough on a bare Debian 12 machine.
#   tools/check_install_list.sh BUILD_DIR
#   tools/check_install_list.sh BUILD_DIR --without PKG   (self-test: must report PKG missing)
# Everything a configured and built tree used from the system must come from a package that
# `apt-get install --no-install-recommends LIST` brings in, i.e. the list or its Depends closure:
#   - every package configuration file CMake read (the cache's *_DIR entries);
#   - every system header the compiler read and every library on a link line (ninja's logs);
#   - every shared library the built executables load (ldd);
#   - the commands the tests and the README's steps run (cpack's dpkg-shlibdeps, xvfb-run, ...).
# Exit 0 when all are covered, 1 with one line per missing package and why it is needed,
# 77 (skipped) on a system without dpkg/apt-cache.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build=${1:?usage: tools/check_install_list.sh BUILD_DIR [--without PKG]}
without=""
[ "${2:-}" = "--without" ] && without=${3:?--without needs a package}
for tool in dpkg-query apt-cache ldd; do
    command -v "$tool" >/dev/null || { echo "skipped: $tool not found (not a Debian system)"; exit 77; }
done
cache="$build/CMakeCache.txt"
[ -f "$cache" ] || { echo "error: $cache not found: configure first" >&2; exit 2; }

mapfile -t listed < <(tools/setup.sh packages | grep -vx "$without" || true)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The Depends closure: what --no-install-recommends installs. Virtual names print as <name>.
apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances "${listed[@]}" 2>/dev/null \
    | grep -v '^ ' | sed 's/:.*//' | sort -u > "$work/closure"
printf '%s\n' "${listed[@]}" >> "$work/closure"
sort -u -o "$work/closure" "$work/closure"

# "path<TAB>why" for everything the build used from the system.
needs="$work/needs"
: > "$needs"
# CMake cache: the package configuration files find_package() read (Qt6OpenGL_DIR, GTest_DIR).
grep -E '^[A-Za-z0-9_.+-]+_DIR:(PATH|FILEPATH)=/usr/' "$cache" | while IFS= read -r line; do
    key=${line%%:*}
    dir=${line#*=}
    [ -d "$dir" ] || continue
    # A directory is shared by many packages: use the config file CMake read in it.
    name=${key%_DIR}
    file=""
    for f in "$dir/${name}Config.cmake" "$dir/$(echo "$name" | tr 'A-Z' 'a-z')-config.cmake"; do
        if [ -f "$f" ]; then file=$f; break; fi
    done
    if [ -n "$file" ]; then printf '%s\t%s\n' "$(readlink -f "$file")" "find_package() ($key)" >> "$needs"; fi
done
# Headers the compiler actually read (ninja's dependency log), and libraries named on link lines.
if [ -f "$build/.ninja_deps" ] && command -v ninja >/dev/null; then
    ninja -C "$build" -t deps 2>/dev/null | awk '$1 ~ /^\/usr\// && $1 !~ /^\/usr\/local\// { print $1 }' \
        | sort -u | while read -r header; do
            printf '%s\t%s\n' "$(readlink -f "$header")" "a header the build includes" >> "$needs"
        done
    ninja -C "$build" -t commands 2>/dev/null | grep -E ' -o [^ ]*(bin/[^ /]+|\.so) ' \
        | tr ' ' '\n' | grep -E '^/usr/[^ ]*\.(so|a)(\.[0-9.]+)?$' | sort -u | while read -r lib; do
            printf '%s\t%s\n' "$(readlink -f "$lib")" "linking ($(basename "$lib"))" >> "$needs"
        done
fi
# Shared libraries of every executable the build made.
for exe in "$build"/bin/*; do
    [ -x "$exe" ] && [ -f "$exe" ] || continue
    ldd "$exe" 2>/dev/null | awk '/=> \// { print $3 }' | while read -r lib; do
        printf '%s\t%s\n' "$(readlink -f "$lib")" "linked by $(basename "$exe") ($(basename "$lib"))" >> "$needs"
    done
done
# Commands the suite and the documented steps run.
# cpack's DEB generator runs dpkg-shlibdeps and file(1); the README's screenshots use xvfb-run;
# the job_mpi test runs mpirun.
for cmd in cmake ctest cpack ninja c++ pkg-config dpkg-deb dpkg-shlibdeps file xvfb-run Xvfb xauth clang-format mpirun; do
    path=$(command -v "$cmd" || true)
    [ -n "$path" ] || { printf '%s\t%s\n' "/nonexistent/$cmd" "command $cmd (tests or README)" >> "$needs"; continue; }
    printf '%s\t%s\n' "$(readlink -f "$path")" "command $cmd (tests or README)" >> "$needs"
done
sort -u -o "$needs" "$needs"

# Map each path to its package, in one dpkg call (it reads the whole database each time).
# Debian 12 merges /usr, but dpkg still records many files under /lib, /bin or /sbin: ask for
# both spellings of each path.
unmerged() { case "$1" in /usr/lib/*|/usr/bin/*|/usr/sbin/*) echo "${1#/usr}" ;; esac; }
cut -f1 "$needs" | sort -u | while read -r p; do
    echo "$p"
    u=$(unmerged "$p")
    if [ -n "$u" ]; then echo "$u"; fi
done > "$work/paths"
xargs -a "$work/paths" -d '\n' dpkg-query -S 2>/dev/null | sed 's/^\([^:,]*\)[^ ]*: /\1\t/' > "$work/owners" || true

missing=0
checked=0
while IFS=$'\t' read -r path why; do
    checked=$((checked + 1))
    owner=$(awk -F'\t' -v p="$path" -v u="$(unmerged "$path")" '$2 == p || (u != "" && $2 == u) { print $1; exit }' "$work/owners")
    if [ -z "$owner" ]; then
        case "$path" in
            /nonexistent/*) echo "missing: ${why#command } is not installed at all"; missing=1 ;;
            /usr/local/*|"$PWD"/*) ;; # not a Debian package's business
            *) echo "note: $path ($why) belongs to no Debian package" ;;
        esac
        continue
    fi
    if ! grep -qx "$owner" "$work/closure"; then
        echo "missing: $owner is not in tools/setup.sh's list or its Depends closure; needed for $why ($path)"
        missing=1
    fi
done < "$needs"

if [ "$missing" -ne 0 ]; then
    echo "install list incomplete (checked $checked paths against ${#listed[@]} listed packages)"
    exit 1
fi
echo "install list complete: $checked paths from the build come from ${#listed[@]} listed packages and their dependencies"
