# antidrift_add_backend: builds one AntiDrift AI backend plugin (docs/PLUGINS.md).
#
#   antidrift_add_backend(<name> <source>...   the plugin's sources (at least one)
#     [DESCRIPTION "<sentence>"]     one line for `antidriftd --list-backends`
#     [PROMPTS local|remote]         where the plugin sends prompts (privacy.local_only
#                                    refuses a plugin that does not say "local")
#     [METADATA <file>]              a ready antidrift-<name>.json instead of the two
#                                    above; its "name" and "abi" must match
#     [TARGET <target>]              the CMake target (default antidrift_backend_<name>)
#     [OUTPUT_DIRECTORY <dir>]       where the .so and .json go (default: the current
#                                    binary folder)
#     [NO_METADATA])                 write no .json (only for test plugins that must
#                                    lack one; the loader lists such a plugin as broken)
#
# Gives antidrift-<name>.so, a MODULE with hidden visibility, -Wl,--no-undefined
# and C++17 (docs/DESIGN.md §8, docs/TECH-NOTES.md §1.5), linked against the
# Backend ABI header (target AntiDrift::backend) and Poco::Foundation, and
# antidrift-<name>.json beside it: the metadata the daemon's loader reads
# ({"name", "abi", "prompts", "description"}; "abi" is the header's
# ANTIDRIFT_BACKEND_ABI_VERSION). Install both into a plugin folder:
# install(TARGETS <target> LIBRARY DESTINATION <dir>) and the .json file, whose
# path the target's property ANTIDRIFT_METADATA_FILE holds (unset with NO_METADATA).
#
# The in-tree plugins use this same file (plugins/CMakeLists.txt), and the
# installed AntiDriftConfig.cmake includes it, so every build checks it.
include_guard(GLOBAL)

function(antidrift_add_backend name)
  set(keywords NO_METADATA DESCRIPTION PROMPTS METADATA TARGET OUTPUT_DIRECTORY)
  cmake_parse_arguments(PARSE_ARGV 1 arg "NO_METADATA" "DESCRIPTION;PROMPTS;METADATA;TARGET;OUTPUT_DIRECTORY"
                        "")
  # Every argument that is no keyword or keyword value is a source file; a
  # word in capitals is a misspelt keyword, said here rather than as a missing file.
  set(sources ${arg_UNPARSED_ARGUMENTS})
  foreach(source IN LISTS sources)
    if(source MATCHES "^[A-Z_]+$")
      list(JOIN keywords ", " known)
      message(FATAL_ERROR "antidrift_add_backend(${name}): unknown keyword ${source} (known: ${known})")
    endif()
  endforeach()
  if(NOT name MATCHES "^[a-z0-9_-]+$")
    message(FATAL_ERROR "antidrift_add_backend(${name}): a backend name is [a-z0-9_-]+ "
                        "(the loader refuses any other)")
  endif()
  if(NOT sources)
    message(FATAL_ERROR "antidrift_add_backend(${name}): no source files")
  endif()
  if(arg_PROMPTS AND NOT arg_PROMPTS MATCHES "^(local|remote)$")
    message(FATAL_ERROR "antidrift_add_backend(${name}): PROMPTS is local or remote, not ${arg_PROMPTS}")
  endif()
  if(arg_DESCRIPTION MATCHES "[\n\r\t]")
    message(FATAL_ERROR "antidrift_add_backend(${name}): DESCRIPTION is one line of text")
  endif()
  if(arg_METADATA AND (arg_DESCRIPTION OR arg_PROMPTS))
    message(FATAL_ERROR "antidrift_add_backend(${name}): METADATA or DESCRIPTION/PROMPTS, not both")
  endif()
  if(NOT TARGET AntiDrift::backend)
    message(FATAL_ERROR "antidrift_add_backend(${name}): no AntiDrift::backend target; "
                        "use find_package(AntiDrift CONFIG REQUIRED) first")
  endif()
  set(target ${arg_TARGET})
  if(NOT target)
    set(target antidrift_backend_${name})
  endif()
  set(output ${arg_OUTPUT_DIRECTORY})
  if(NOT output)
    set(output ${CMAKE_CURRENT_BINARY_DIR})
  endif()

  add_library(${target} MODULE ${sources})
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    SUFFIX ".so"
    OUTPUT_NAME antidrift-${name}
    LIBRARY_OUTPUT_DIRECTORY ${output}
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    CXX_EXTENSIONS OFF)
  target_compile_features(${target} PRIVATE cxx_std_17)
  # A sanitizer build leaves the sanitizer runtime's symbols to the executable
  # (clang links it into executables only), so --no-undefined cannot hold there.
  if(NOT ANTIDRIFT_SANITIZE)
    target_link_options(${target} PRIVATE "LINKER:--no-undefined")
  endif()
  target_link_libraries(${target} PRIVATE AntiDrift::backend Poco::Foundation)

  set(json ${output}/antidrift-${name}.json)
  if(arg_NO_METADATA)
    return()
  endif()
  # The ABI version the sources are compiled against, read from the header
  # the AntiDrift::backend target provides.
  get_target_property(includes AntiDrift::backend INTERFACE_INCLUDE_DIRECTORIES)
  set(abi "")
  foreach(dir IN LISTS includes)
    if(EXISTS ${dir}/antidrift/backend_abi.h)
      file(STRINGS ${dir}/antidrift/backend_abi.h line
           REGEX "^#define ANTIDRIFT_BACKEND_ABI_VERSION [0-9]+$")
      string(REGEX REPLACE ".* ([0-9]+)$" "\\1" abi "${line}")
      break()
    endif()
  endforeach()
  if(NOT abi)
    message(FATAL_ERROR "antidrift_add_backend(${name}): no antidrift/backend_abi.h in ${includes}")
  endif()
  if(arg_METADATA)
    # A ready-made file must name this backend and this ABI: a stale "abi"
    # (forgotten at a bump) fails here, not in the daemon's listing.
    get_filename_component(metadata ${arg_METADATA} ABSOLUTE)
    file(READ ${metadata} given)
    string(JSON givenName ERROR_VARIABLE problem GET "${given}" name)
    if(NOT problem)
      string(JSON givenAbi ERROR_VARIABLE problem GET "${given}" abi)
    endif()
    if(problem)
      message(FATAL_ERROR "antidrift_add_backend(${name}): METADATA ${metadata} needs \"name\" "
                          "and \"abi\": ${problem}")
    endif()
    if(NOT givenName STREQUAL name)
      message(FATAL_ERROR "antidrift_add_backend(${name}): METADATA ${metadata} names "
                          "\"${givenName}\", not \"${name}\"")
    endif()
    if(NOT givenAbi STREQUAL abi)
      message(FATAL_ERROR "antidrift_add_backend(${name}): METADATA ${metadata} says \"abi\": "
                          "${givenAbi}, the header's ANTIDRIFT_BACKEND_ABI_VERSION is ${abi}")
    endif()
    configure_file(${metadata} ${json} COPYONLY)
  else()
    # JSON strings: escape backslashes and quotes.
    string(REPLACE "\\" "\\\\" description "${arg_DESCRIPTION}")
    string(REPLACE "\"" "\\\"" description "${description}")
    set(text "{\n  \"name\": \"${name}\",\n  \"abi\": ${abi},\n")
    if(arg_PROMPTS)
      string(APPEND text "  \"prompts\": \"${arg_PROMPTS}\",\n")
    endif()
    string(APPEND text "  \"description\": \"${description}\"\n}\n")
    # Written aside, then copied only when it changed, so a re-run of cmake
    # does not touch the file (file(CONFIGURE) would also expand any ${…} or
    # @…@ in the description).
    set(draft ${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/antidrift-${name}.json)
    file(WRITE ${draft} "${text}")
    configure_file(${draft} ${json} COPYONLY)
  endif()
  set_property(TARGET ${target} PROPERTY ANTIDRIFT_METADATA_FILE ${json})
endfunction()
