# openai_stand_in: the stand-in OpenAI-compatible server as a program (issue 18
# item 5; tests/support/openai_stand_in.h). Included from tests/CMakeLists.txt.
add_executable(openai_stand_in ${CMAKE_CURRENT_LIST_DIR}/openai_stand_in_main.cpp)
target_include_directories(openai_stand_in PRIVATE ${CMAKE_SOURCE_DIR}/tests)
target_link_libraries(openai_stand_in PRIVATE Poco::Net Poco::JSON Poco::Foundation Threads::Threads)
