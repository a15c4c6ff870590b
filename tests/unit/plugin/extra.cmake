# unit_plugin loads the real fake, claude and codex plugins and the broken test
# plugins by path; all real plugins are built into the same directory.
if(NOT TARGET antidrift_plugin_wrong_abi)
  add_subdirectory(${CMAKE_CURRENT_SOURCE_DIR}/plugins ${CMAKE_BINARY_DIR}/tests/plugins-build)
endif()
add_dependencies(unit_plugin antidrift_plugin_fake antidrift_plugin_claude antidrift_plugin_codex
                 antidrift_plugin_wrong_abi
                 antidrift_plugin_no_abi antidrift_plugin_configure_throws
                 antidrift_plugin_stale_manifest)
target_compile_definitions(unit_plugin PRIVATE
  FAKE_PLUGIN_DIR="$<TARGET_FILE_DIR:antidrift_plugin_fake>"
  CLI_PLUGIN_DIR="$<TARGET_FILE_DIR:antidrift_plugin_claude>"
  TEST_PLUGIN_DIR="$<TARGET_FILE_DIR:antidrift_plugin_wrong_abi>"
  FAKE_EXAMPLE_RESPONSES="${CMAKE_CURRENT_LIST_DIR}/../../../plugins/fake/responses.example.json")
