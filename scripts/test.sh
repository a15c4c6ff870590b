#!/usr/bin/env bash
# The one command that runs every test: installs what is missing (including
# Xvfb, openbox, xdotool, chromium and node for the end-to-end tests), builds
# with tests and runs ctest (whose first browser step installs the pinned
# playwright-core from npm).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh test
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Debug -DBUILD_TESTING=ON >/dev/null
cmake --build build-test -j"$(nproc)"
cd build-test
ctest --output-on-failure --timeout 300 -j"$(nproc)"
