# unit_openai: the stand-in OpenAI-compatible server (tests/support/openai_stand_in.h)
# and, against it, the openai plugin loaded by path (issue 18 items 1 and 5).
target_link_libraries(unit_openai PRIVATE Poco::Net Poco::JSON)
