# Included by tests/CMakeLists.txt inside antidrift_unit_test(sway); `target` is unit_sway.
# The server's CMakeLists.txt adds server/sway too, guarded by the same check.
if(NOT TARGET antidrift_sway)
  add_subdirectory(${CMAKE_SOURCE_DIR}/server/sway ${CMAKE_BINARY_DIR}/swaylib)
endif()
target_link_libraries(${target} PRIVATE antidrift_sway Poco::JSON Poco::Foundation)
