# Included by tests/CMakeLists.txt inside antidrift_unit_test(session); `target` is unit_session.
# off_lock_test.cpp sets libpcre's callout hook (pcre_callout) to see, in the middle of a
# drift.blocked_titles match, whether the Controller's lock is held (issue 19 item 7, review L5).
# libpcre3-dev comes with libpoco-dev, whose RegularExpression uses the same shared libpcre.
find_library(ANTIDRIFT_PCRE_LIBRARY pcre REQUIRED)
find_path(ANTIDRIFT_PCRE_INCLUDE_DIR pcre.h REQUIRED)
target_include_directories(${target} SYSTEM PRIVATE ${ANTIDRIFT_PCRE_INCLUDE_DIR})
target_link_libraries(${target} PRIVATE ${ANTIDRIFT_PCRE_LIBRARY})
