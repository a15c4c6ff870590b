# Included by tests/CMakeLists.txt inside antidrift_unit_test(server); `target` is unit_server.
# The server's pure parts (request guard, config, token file, SSE, ticker) live in antidrift_server.
target_link_libraries(${target} PRIVATE antidrift_server)
