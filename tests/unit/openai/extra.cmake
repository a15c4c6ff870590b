# unit_openai: the stand-in OpenAI-compatible server (tests/support/openai_stand_in.h)
# and, against it, the openai plugin loaded by path (issue 18 items 1 and 5).
target_link_libraries(unit_openai PRIVATE Poco::Net Poco::JSON)
add_dependencies(unit_openai antidrift_plugin_openai)
target_compile_definitions(unit_openai PRIVATE
  OPENAI_PLUGIN_DIR="$<TARGET_FILE_DIR:antidrift_plugin_openai>")
