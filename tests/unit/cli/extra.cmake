# Included by tests/CMakeLists.txt inside antidrift_unit_test(cli); `target` is unit_cli.
# The antidrift command's pure parts (status_text) live in antidrift_cli; those it
# shares with antidrift-watch (state_text, sse_parser, watch_client) in antidrift_cli_lean.
target_link_libraries(${target} PRIVATE antidrift_cli)
