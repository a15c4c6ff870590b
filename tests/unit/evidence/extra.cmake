# The real ActivityWatch export stays in ../shared/data and is read by path.
get_filename_component(ANTIDRIFT_SHARED_DATA "${CMAKE_SOURCE_DIR}/../shared/data" ABSOLUTE)
target_compile_definitions(unit_evidence PRIVATE ANTIDRIFT_SHARED_DATA="${ANTIDRIFT_SHARED_DATA}")
# The repository's own small export (tests/data/README.md), read on every run.
target_compile_definitions(unit_evidence PRIVATE ANTIDRIFT_TEST_DATA="${CMAKE_SOURCE_DIR}/tests/data")
