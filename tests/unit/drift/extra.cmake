# The real ActivityWatch export stays in ../shared/data and is read by path.
get_filename_component(ANTIDRIFT_SHARED_DATA "${CMAKE_SOURCE_DIR}/../shared/data" ABSOLUTE)
target_compile_definitions(unit_drift PRIVATE ANTIDRIFT_SHARED_DATA="${ANTIDRIFT_SHARED_DATA}")
# data/distractions.txt, the shipped known distractions (issue 16 item 3).
target_compile_definitions(unit_drift PRIVATE ANTIDRIFT_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
# The repository's own small export (tests/data/README.md), read on every run.
target_compile_definitions(unit_drift PRIVATE ANTIDRIFT_TEST_DATA="${CMAKE_SOURCE_DIR}/tests/data")
