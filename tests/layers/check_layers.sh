#!/bin/sh
# The layer check (docs/ARCHITECTURE.md "The arrows", issue 15 item 1): reads
# every #include of the C++ sources and fails when one points the wrong way.
# Usage: tests/layers/check_layers.sh [SOURCE_DIR]   (default: the repository
# this script lives in). Prints one line per broken rule and exits 1 if any;
# prints "layers: ok (N files)" and exits 0 otherwise. Registered as the ctest
# test "layers.check" (tests/CMakeLists.txt), so scripts/test.sh runs it.
set -eu
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root"

failures=0
fail() {
  echo "layers: $1" >&2
  failures=$((failures + 1))
}

# Every C/C++ source and header of one room, as "file:line:#include ..." lines.
includes() {
  find "$@" -type f \( -name '*.h' -o -name '*.cpp' -o -name '*.c' \) -print0 2>/dev/null |
    xargs -0 grep -Hn '^[[:space:]]*#[[:space:]]*include' || true
}

# Rule 1: core/ does no network I/O and reads no configuration: nothing of
# Poco::Net or Poco::Util (the link graph says so too: core/CMakeLists.txt).
includes core | grep -E '#[[:space:]]*include[[:space:]]*[<"]Poco/(Net|Util)/' |
  while IFS= read -r line; do echo "rule 1 (core includes no Poco/Net or Poco/Util): $line"; done |
  { grep . >&2 && echo x; } | grep -q x && fail "rule 1 broken" || true

# Rule 2: the drift floor is sans-I/O and below the session: core/drift
# includes nothing of session/ (nor store/, plugin/, replay/, planning/).
includes core/include/antidrift/drift core/src/drift |
  grep -E '"antidrift/(session|store|plugin|replay|planning)/' |
  while IFS= read -r line; do echo "rule 2 (drift includes nothing of session/store/plugin/replay/planning): $line"; done |
  { grep . >&2 && echo x; } | grep -q x && fail "rule 2 broken" || true

# Rule 3: the floors of core point one way. For each floor, the floors it may
# include (the single headers at the top of antidrift/ — clock.h, epoch.h,
# executor.h, settings.h, backend.h, thread_name.h — are the ground everyone
# stands on).
allowed() {
  case $1 in
    text) echo "text" ;;
    domain) echo "text domain" ;;
    evidence) echo "text domain evidence" ;;
    ai) echo "text domain ai" ;;
    planning) echo "text domain planning" ;;
    store) echo "text domain evidence store" ;;
    drift) echo "text domain evidence ai drift" ;;
    plugin) echo "plugin" ;;
    replay) echo "text domain evidence ai drift replay" ;;
    session) echo "text domain evidence ai drift planning store session" ;;
    wire) echo "text domain evidence ai drift planning store session wire" ;;
    *) echo "" ;;
  esac
}
for floor in $(ls core/include/antidrift core/src | grep -v '[.:]' | grep . | sort -u); do
  ok=$(allowed "$floor")
  if [ -z "$ok" ]; then
    fail "rule 3: core floor '$floor' has no entry in the table of tests/layers/check_layers.sh"
    continue
  fi
  includes "core/include/antidrift/$floor" "core/src/$floor" |
    sed -n 's/^\([^:]*:[0-9]*\):.*"antidrift\/\([a-z_]*\)\/.*/\1 \2/p' |
    while read -r where target; do
      case " $ok " in
        *" $target "*) ;;
        *) echo "rule 3 (core/$floor may include only: $ok): $where includes antidrift/$target/" ;;
      esac
    done | { grep . >&2 && echo x; } | grep -q x && fail "rule 3 broken" || true
done

# Rule 4: no room includes another's private header. A private header lives
# beside its .cpp under core/src/ or plugins/common/src/; only its own room
# (core/, resp. plugins/) may include it. Inside core, a floor includes another
# floor's private header only where listed here (the verdict memory's JSONL,
# which uses the store's JSON field helpers until its file format moves into
# store/ beside verdict_store.cpp).
private_ok_in_core='core/src/drift/verdict_memory.cpp:store/json_fields.h'
includes server cli plugins tests core |
  sed -n 's/^\([^:]*\):\([0-9]*\):.*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1 \2 \3/p' |
  while read -r file line header; do
    case $header in
      *src/*) echo "rule 4 (no include through a src/ path): $file:$line includes \"$header\"" ;;
    esac
    if [ -f "core/src/$header" ] && [ ! -f "core/include/$header" ]; then
      case $file in
        core/src/*)
          own=${file#core/src/}
          own=${own%%/*}
          case $header in
            "$own"/*) ;;
            *) printf '%s\n' "$private_ok_in_core" | grep -qx "$file:$header" ||
                 echo "rule 4 (a core floor includes another floor's private header): $file:$line includes \"$header\"" ;;
          esac
          ;;
        *) echo "rule 4 (core's private headers stay in core): $file:$line includes \"$header\"" ;;
      esac
    fi
  done | { grep . >&2 && echo x; } | grep -q x && fail "rule 4 broken" || true

# Rule 5: plugins, and the SDK's examples built outside the tree, include
# from core only the Backend ABI header (antidrift/backend.h); the in-tree
# plugins' shared code is plugins/common (antidrift/runner/...). Nothing of
# server/ or cli/.
# Two plain libraries that link no daemon code are shared with the in-tree
# plugins too (not with the examples): the UTF-8 checks (antidrift_utf8) and
# the check of who owns a model server's listener (antidrift_socket_owner),
# so the openai plugin refuses another user's server with the very code the
# daemon's probe and the CLI use, not a second copy.
includes plugins examples |
  sed -n 's/^\([^:]*:[0-9]*\):.*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1 \2/p' |
  while read -r where header; do
    case $where:$header in
      plugins/*:antidrift/text/utf8.h | plugins/*:server/listener_owner.h) continue ;;
    esac
    case $header in
      antidrift/backend.h | antidrift/runner/*) ;;
      *) [ -f "core/include/$header" ] || [ -f "core/src/$header" ] || [ -f "$header" ] &&
           echo "rule 5 (plugins include only antidrift/backend.h of core): $where includes \"$header\"" ;;
    esac
  done | { grep . >&2 && echo x; } | grep -q x && fail "rule 5 broken" || true

# Rule 6: core knows nothing of the rooms around it (server/, cli/, plugins'
# code, tests/), and server/ nothing of cli/.
includes core | grep -E '#[[:space:]]*include[[:space:]]*"(server|cli|plugins|tests|mocks|support)/|"antidrift/runner/' |
  while IFS= read -r line; do echo "rule 6 (core includes nothing of server/cli/plugins/tests): $line"; done |
  { grep . >&2 && echo x; } | grep -q x && fail "rule 6 broken" || true
includes server | grep -E '#[[:space:]]*include[[:space:]]*"cli/' |
  while IFS= read -r line; do echo "rule 6 (server includes nothing of cli/): $line"; done |
  { grep . >&2 && echo x; } | grep -q x && fail "rule 6 broken" || true

# Rule 7: the State is a plain value and reaches no Poco header, not even
# through what it includes (issue 15 item 5): preprocess a unit that includes
# session/state.h alone and list every header it reads (-H). Uses $CXX (ctest
# passes the build's compiler), else c++.
cxx=${CXX:-c++}
if ! command -v "$cxx" >/dev/null 2>&1; then
  fail "rule 7: no C++ compiler '$cxx' to list what session/state.h includes (set CXX)"
elif ! tree=$(echo '#include "antidrift/session/state.h"' |
  "$cxx" -std=c++17 -x c++ -Icore/include -E -H -o /dev/null - 2>&1); then
  printf '%s\n' "$tree" | grep -v '^\.' >&2
  fail "rule 7: preprocessing session/state.h failed"
else
  # -H prints one line per header, dots for the depth; show each chain from
  # state.h down to the first Poco header it reaches.
  printf '%s\n' "$tree" | awk '
    /^\.+ / {
      depth = length($1); path[depth] = $2
      if ($2 ~ /\/Poco\// && path[depth - 1] !~ /\/Poco\//) {
        chain = path[1]
        for (i = 2; i <= depth; i++) chain = chain " -> " path[i]
        print "rule 7 (session/state.h reaches no Poco header): " chain
      }
    }' | { grep . >&2 && echo x; } | grep -q x && fail "rule 7 broken" || true
fi

if [ "$failures" -gt 0 ]; then
  echo "layers: $failures check(s) failed; see docs/ARCHITECTURE.md \"The arrows\"" >&2
  exit 1
fi
echo "layers: ok ($(includes core server cli plugins tests | cut -d: -f1 | sort -u | wc -l) files)"
