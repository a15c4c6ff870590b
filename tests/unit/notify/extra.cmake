# Included by tests/CMakeLists.txt inside antidrift_unit_test(notify); `target` is unit_notify.
# The notifier lives in antidrift_server; the real-server test uses the Xvfb helper
# (tests/support/xvfb_session.h), which needs X11 and the antidrift_testwin binary's path.
target_link_libraries(${target} PRIVATE antidrift_server X11::X11)
add_dependencies(${target} antidrift_testwin)
target_compile_definitions(${target} PRIVATE TESTWIN_PATH="$<TARGET_FILE:antidrift_testwin>")
# do_not_disturb_test.cpp runs the antidriftd binary against a private dunst.
add_dependencies(${target} antidriftd)
target_compile_definitions(${target} PRIVATE ANTIDRIFTD_PATH="$<TARGET_FILE:antidriftd>")
# The crash-then-failed-start case holds the store lock with this helper.
add_dependencies(${target} antidrift_store_lock_holder)
target_compile_definitions(${target} PRIVATE
  STORE_LOCK_HOLDER_PATH="$<TARGET_FILE:antidrift_store_lock_holder>")
