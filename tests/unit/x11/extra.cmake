# Included by tests/CMakeLists.txt inside antidrift_unit_test(x11); `target` is unit_x11.
# The server's CMakeLists.txt adds server/x11 too, guarded by the same check.
if(NOT TARGET antidrift_x11)
  add_subdirectory(${CMAKE_SOURCE_DIR}/server/x11 ${CMAKE_BINARY_DIR}/x11lib)
endif()
target_link_libraries(${target} PRIVATE antidrift_x11 Poco::Foundation X11::X11)
# The test starts real antidrift_testwin windows (tests/e2e/CMakeLists.txt).
add_dependencies(${target} antidrift_testwin)
target_compile_definitions(${target} PRIVATE TESTWIN_PATH="$<TARGET_FILE:antidrift_testwin>")
