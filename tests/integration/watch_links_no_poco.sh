#!/bin/sh
# antidrift-watch links no Poco (issue 20 item 2: the status bars' watch stays
# under 5 MB RSS only without Poco's libraries), and outside sanitizer builds not
# the shared libstdc++ either (it links the C++ runtime statically).
# Usage: watch_links_no_poco.sh BINARY static-cxx|shared-cxx
# Registered as the ctest test cli.watch_links_no_poco (tests/integration/CMakeLists.txt).
set -eu
needed=$(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
echo "NEEDED of $1:" $needed
echo "$needed" | grep -qx 'libc.so.6' || { echo "readelf lists no libc.so.6: not read?" >&2; exit 1; }
if echo "$needed" | grep -i poco >&2; then
  echo "antidrift-watch links Poco" >&2
  exit 1
fi
if [ "$2" = static-cxx ] && echo "$needed" | grep 'libstdc++' >&2; then
  echo "antidrift-watch links the shared libstdc++ (expected -static-libstdc++)" >&2
  exit 1
fi
echo "ok"
