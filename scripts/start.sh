#!/usr/bin/env bash
# The one command that starts AntiDrift: installs what is missing, builds,
# and runs the daemon in the foreground on http://127.0.0.1:7717.
# Extra arguments go to antidriftd (e.g. --config FILE, -D ai.backend=fake).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh run
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF >/dev/null
cmake --build build -j"$(nproc)"
exec build/antidriftd "$@"
