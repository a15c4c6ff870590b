#!/usr/bin/env bash
# The one command that runs every test: installs what is missing (including
# Xvfb, openbox, xdotool, chromium and node for the end-to-end tests), builds
# with tests and runs ctest (whose first browser step installs the pinned
# playwright-core from npm). It uses the same build folder as scripts/start.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh test
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON >/dev/null
cmake --build build -j"$(nproc)"
cd build
ctest --output-on-failure --timeout 300 -j"$(nproc)"
