#!/usr/bin/env bash
# One-off check with the REAL claude and codex CLIs from npm (about 800 MB,
# so not part of scripts/test.sh or CI). They cannot reach their services from
# a sandbox without credentials; the check proves the daemon calls them with
# flags they accept, that they fail for want of a login or network, that the
# coach shows a short error within ai.timeout_s, and that manual planning works.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh test
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Debug -DBUILD_TESTING=ON >/dev/null
cmake --build build-test -j"$(nproc)" --target antidriftd antidrift_plugin_claude antidrift_plugin_codex
(cd tests/e2e/real-cli && npm install --no-audit --no-fund --loglevel=error)
(cd tests/e2e/browser && npm ci --no-audit --no-fund --loglevel=error)

bin="$PWD/tests/e2e/real-cli/node_modules/.bin"
echo "claude: $("$bin/claude" --version 2>&1 | head -n1)"
echo "codex:  $("$bin/codex" --version 2>&1 | head -n1)"
PATH="$bin:$PATH" \
ANTIDRIFT_BIN="$PWD/build-test/antidriftd" \
ANTIDRIFT_PLUGIN_DIR="$PWD/build-test/plugins" \
  node --test --test-reporter=spec tests/e2e/real-cli/real-cli.test.mjs
