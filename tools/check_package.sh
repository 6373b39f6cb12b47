#!/bin/sh
# Builds the Debian package from a configured build tree and checks that it installs and starts:
#   tools/check_package.sh [BUILD_DIR] [--install]
# Without --install the package is unpacked into a temporary root (no root rights needed);
# with --install it is installed with dpkg -i (then `layerscope --version` runs from PATH).
set -eu
command -v dpkg-deb >/dev/null 2>&1 || { echo "skipped: dpkg-deb not found (not a Debian system)"; exit 77; }
build=${1:-build/release}
install=no
[ "${2:-}" = "--install" ] && install=yes
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$build" && cpack -G DEB -B "$work/out" >/dev/null)
deb=$(ls "$work"/out/*.deb)
echo "package: $(basename "$deb")"
dpkg-deb -c "$deb" > "$work/contents"
for f in ./usr/bin/layerscope ./usr/bin/layerscope-cli ./usr/share/applications/io.github.layerscope.Layerscope.desktop \
         ./usr/share/metainfo/io.github.layerscope.Layerscope.metainfo.xml \
         ./usr/share/icons/hicolor/scalable/apps/layerscope.svg ./usr/share/layerscope/sample_gpt2_2layer_fp16_h200.sqlite; do
    grep -q " $f\$" "$work/contents" || { echo "missing from package: $f" >&2; exit 1; }
done
if [ "$install" = yes ]; then
    dpkg -i "$deb" >/dev/null
    root=""
else
    dpkg-deb -x "$deb" "$work/root"
    root="$work/root"
fi
"$root/usr/bin/layerscope" --version
"$root/usr/bin/layerscope-cli" --version
"$root/usr/bin/layerscope-cli" info "$root/usr/share/layerscope/sample_gpt2_2layer_fp16_h200.sqlite" | head -n 3
echo "package ok"
