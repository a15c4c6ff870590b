# antidrift_store_lock_holder: holds a store's lock until its stdin closes, as
# the CLI's offline token rotation does (tests/support/store_lock_holder_main.cpp).
# Included from tests/CMakeLists.txt; used by the integration and notify tests.
add_executable(antidrift_store_lock_holder ${CMAKE_CURRENT_LIST_DIR}/store_lock_holder_main.cpp)
target_link_libraries(antidrift_store_lock_holder PRIVATE antidrift_store_files)
