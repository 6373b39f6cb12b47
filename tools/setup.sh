#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine:
#   tools/setup.sh app [FILE]   install what is missing, build the release preset, start the app
#                               (on the bundled sample trace when no FILE is given)
#   tools/setup.sh test         install what is missing, build the dev preset (ASan + UBSan,
#                               warnings as errors) and run the whole test suite
#   tools/setup.sh packages     print the Debian packages it installs, one a line
# The install step is idempotent and uses sudo only when not root.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Everything the build, the tests and the README's GUI steps use on a bare Debian 12, installed
# with --no-install-recommends. tools/check_install_list.sh (a ctest) proves this list complete.
# libqt6opengl6-dev: qt6-charts-dev's CMake files need Qt6OpenGL's but the package does not say so.
# dpkg-dev, file: cpack's DEB generator runs dpkg-shlibdeps and file(1) (package_deb test).
# xvfb, xauth: the README's screenshot steps (xvfb-run). clang-format: the format test.
# libopenmpi-dev, openmpi-bin: `layerscope-cli job` under mpirun (optional to build, the suite
# runs it: the job_mpi test).
PACKAGES=(cmake ninja-build g++ pkg-config dpkg-dev file libsqlite3-dev libgtest-dev libgmock-dev
          libsimdjson-dev zlib1g-dev python3
          qt6-base-dev qt6-charts-dev libqt6opengl6-dev libqt6svg6 libgl-dev
          xvfb xauth clang-format libopenmpi-dev openmpi-bin)

install_deps() {
    local missing=()
    for p in "${PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=()
    [ "$(id -u)" -ne 0 ] && sudo=(sudo)
    echo "Installing: ${missing[*]}"
    "${sudo[@]}" apt-get update -q
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
}

jobs() { nproc 2>/dev/null || echo 2; }

case "${1:-}" in
packages)
    printf '%s\n' "${PACKAGES[@]}"
    ;;
app)
    shift
    install_deps
    cmake --preset release
    cmake --build --preset release -j "$(jobs)"
    exec build/release/bin/layerscope "$@"
    ;;
test)
    install_deps
    cmake --preset dev
    cmake --build --preset dev -j "$(jobs)"
    ctest --preset dev -j "$(jobs)"
    ;;
*)
    echo "usage: tools/setup.sh app [FILE] | test | packages" >&2
    exit 2
    ;;
esac
