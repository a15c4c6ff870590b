# unit_runner tests the process runner that the CLI plugins link (plugins/common).
target_link_libraries(unit_runner PRIVATE antidrift_runner)
