#!/usr/bin/env bash
# The one command that starts AntiDrift from the source tree: installs what is
# missing, builds, and runs the daemon in the foreground on http://127.0.0.1:7717.
# Extra arguments go to antidriftd (e.g. --config FILE, -D ai.backend=fake).
# It shares the build folder `build` with scripts/test.sh (same configuration,
# tests enabled), so the project is never built twice; it builds only the
# daemon, the antidrift command and the plugins (the target antidrift_installed:
# everything the package installs).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh run
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON >/dev/null
cmake --build build -j"$(nproc)" --target antidrift_installed
exec build/antidriftd "$@"
