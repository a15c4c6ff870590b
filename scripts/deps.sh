#!/usr/bin/env bash
# Installs the Debian 12 packages AntiDrift needs, only those missing.
# Usage: scripts/deps.sh run|test   (run: build + daemon; test: also Xvfb, a WM, sway, foot,
# chromium, node)
# Idempotent: does nothing (and needs no network) when everything is there.
set -euo pipefail

profile=${1:-run}
packages=(cmake g++ make libpoco-dev libutf8proc-dev pkg-config libx11-dev libxss-dev libxext-dev googletest libgtest-dev libgmock-dev)
# The replay's streaming JSON reader (issue 16 item 5): header-only, a build dependency only.
packages+=(rapidjson-dev)
# The State's JSON in the code antidrift and antidrift-watch share (issue 20 item 2: the
# bars' watch links no Poco): header-only, a build dependency only.
packages+=(nlohmann-json3-dev)
# The registrable domain of URL evidence from the public suffix list (core/src/evidence/web_join.cpp).
packages+=(libpsl-dev)
# Rebuilds of unchanged files across build folders and checkouts (CMakeLists.txt).
packages+=(ccache)
# The common English words relevance weighs less (SCOWL size 35, embedded at build time by
# core/CMakeLists.txt): a build dependency only.
packages+=(wamerican-small)
if [ "$profile" = test ]; then
  packages+=(xvfb openbox xdotool x11-utils chromium libbenchmark-dev)
  # The other-user security test sends requests with curl as a second user (runuser).
  packages+=(curl)
  # The notify.desktop test: a real notification server on a private session bus.
  # gdbus (libglib2.0-bin) waits for the server to own its bus name.
  packages+=(dbus dunst libnotify-bin libglib2.0-bin)
  # The install tests: systemd-analyze verify on the user unit, dpkg-shlibdeps for cpack's .deb.
  packages+=(systemd dpkg-dev)
  # The sway evidence source end to end: a headless sway with foot windows.
  packages+=(sway foot)
  # Fuzzing and sanitizers (issue 9 items 4, 5): clang-14 with its sanitizer
  # runtimes (libclang-rt-14-dev also carries libFuzzer's) and libFuzzer.
  packages+=(clang-14 libclang-rt-14-dev libfuzzer-14-dev)
  # tests/bench/replay_scale.sh measures wall time and peak RSS with /usr/bin/time.
  packages+=(time)
  command -v node >/dev/null 2>&1 || packages+=(nodejs)
  command -v npm >/dev/null 2>&1 || packages+=(npm)
fi

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "antidrift: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "antidrift: run as root or install sudo" >&2; exit 1; }
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
