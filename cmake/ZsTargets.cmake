# Project-wide compile flags and helpers to declare libraries and tests.

set(ZS_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  # GCC 12 at -O3 reports std::string concatenation as overlapping memcpy (false positive,
  # https://gcc.gnu.org/bugzilla/show_bug.cgi?id=105651).
  list(APPEND ZS_WARNINGS -Wno-restrict)
endif()
if(ZS_WERROR)
  list(APPEND ZS_WARNINGS -Werror)
endif()

set(ZS_SAN_FLAGS "")
if(ZS_SANITIZE)
  set(ZS_SAN_FLAGS -fsanitize=${ZS_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
endif()
if(ZS_FUZZ)
  # Coverage instrumentation for every library the fuzz targets link.
  list(APPEND ZS_SAN_FLAGS -fsanitize=fuzzer-no-link)
endif()

# Position-independent code, so that the libraries can also be linked into the shared libraries
# loaded on first use (exec/backend_library.h). GCC's -fPIC would otherwise
# assume that any global function may be interposed and stop inlining it;
# -fno-semantic-interposition keeps the code as fast as in the executable.
set(ZS_PIC_FLAGS "")
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set(ZS_PIC_FLAGS -fno-semantic-interposition)
endif()

# zs_library(NAME SOURCES ... DEPS ...): a static library rooted at the repository top, so that
# includes read "common/status.h".
function(zs_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${ZS_PIC_FLAGS}>)
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_compile_options(${name} PRIVATE ${ZS_WARNINGS})
  target_compile_options(${name} PUBLIC ${ZS_SAN_FLAGS})
  target_link_options(${name} PUBLIC ${ZS_SAN_FLAGS})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
endfunction()

# zs_test(NAME SOURCES ... DEPS ... [LABELS ...] [ENV VAR=VALUE]): one GoogleTest binary
# registered with CTest; ENV sets one more variable in its tests' environment (one: the
# properties gtest_discover_tests passes on cannot hold lists).
function(zs_test name)
  cmake_parse_arguments(ARG "" "ENV" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_compile_options(${name} PRIVATE ${ZS_WARNINGS})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE
    ZS_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    ZS_BINARY_DIR="${PROJECT_BINARY_DIR}")
  set(props ENVIRONMENT "ZS_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
  if(ARG_ENV)
    string(REGEX REPLACE "^([^=]+)=" "\\1=set:" env_set "${ARG_ENV}")
    list(APPEND props ENVIRONMENT_MODIFICATION "${env_set}")
  endif()
  if(ARG_LABELS)
    list(APPEND props LABELS "${ARG_LABELS}")
  endif()
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST TEST_PREFIX "${name}." PROPERTIES ${props})
endfunction()
include(GoogleTest)
