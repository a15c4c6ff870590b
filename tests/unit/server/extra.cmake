# Included by tests/CMakeLists.txt inside antidrift_unit_test(server); `target` is unit_server.
# The server's pure parts (request guard, config, token file, SSE, ticker) live in antidrift_server.
target_link_libraries(${target} PRIVATE antidrift_server)
target_compile_definitions(${target} PRIVATE
  ANTIDRIFT_SOURCE_WWW_DIR_FOR_TEST="${CMAKE_SOURCE_DIR}/www")
