#!/usr/bin/env bash
# The one command that runs every test: installs what is missing (including
# Xvfb, openbox, xdotool, chromium and node for the end-to-end tests), builds
# with tests, installs the browser test's npm packages, and runs ctest.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh test
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Debug -DBUILD_TESTING=ON >/dev/null
cmake --build build-test -j"$(nproc)"
if [ -f tests/e2e/browser/package-lock.json ]; then
  (cd tests/e2e/browser && npm ci --no-audit --no-fund --loglevel=error)
fi
cd build-test
ctest --output-on-failure --timeout 300 -j"$(nproc)"
