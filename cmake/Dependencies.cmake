# Third-party libraries. CI installs them from Debian (libgtest-dev,
# libcli11-dev, nlohmann-json3-dev, liblzma-dev); on a machine without them
# (the GPU machine) the same headers and sources can sit in .deps/
# (tools/prepare_device_deps.sh fills it).
set(SPEEDQA_DEPS_DIR ${PROJECT_SOURCE_DIR}/.deps)

# CLI11 (header only)
find_path(SPEEDQA_CLI11_INCLUDE CLI/CLI.hpp HINTS ${SPEEDQA_DEPS_DIR}/include)
if(NOT SPEEDQA_CLI11_INCLUDE)
  message(FATAL_ERROR "CLI11 not found: apt-get install libcli11-dev")
endif()
add_library(speedqa_cli11 INTERFACE)
target_include_directories(speedqa_cli11 SYSTEM INTERFACE ${SPEEDQA_CLI11_INCLUDE})

if(SPEEDQA_BUILD_TESTS)
  # nlohmann-json (header only)
  find_path(SPEEDQA_JSON_INCLUDE nlohmann/json.hpp HINTS ${SPEEDQA_DEPS_DIR}/include)
  if(NOT SPEEDQA_JSON_INCLUDE)
    message(FATAL_ERROR "nlohmann-json not found: apt-get install nlohmann-json3-dev")
  endif()
  add_library(speedqa_json INTERFACE)
  target_include_directories(speedqa_json SYSTEM INTERFACE ${SPEEDQA_JSON_INCLUDE})

  # liblzma (the test clips are .xz)
  find_path(SPEEDQA_LZMA_INCLUDE lzma.h HINTS ${SPEEDQA_DEPS_DIR}/include)
  find_library(SPEEDQA_LZMA_LIB NAMES lzma liblzma.so.5 HINTS ${SPEEDQA_DEPS_DIR}/lib)
  if(NOT SPEEDQA_LZMA_INCLUDE OR NOT SPEEDQA_LZMA_LIB)
    message(FATAL_ERROR "liblzma not found: apt-get install liblzma-dev")
  endif()
  add_library(speedqa_lzma INTERFACE)
  target_include_directories(speedqa_lzma SYSTEM INTERFACE ${SPEEDQA_LZMA_INCLUDE})
  target_link_libraries(speedqa_lzma INTERFACE ${SPEEDQA_LZMA_LIB})

  # GoogleTest: the installed package, else its sources in .deps/googletest
  find_package(GTest QUIET)
  if(NOT GTest_FOUND)
    if(EXISTS ${SPEEDQA_DEPS_DIR}/googletest/CMakeLists.txt)
      set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
      set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
      add_subdirectory(${SPEEDQA_DEPS_DIR}/googletest ${CMAKE_BINARY_DIR}/googletest EXCLUDE_FROM_ALL)
      add_library(GTest::gtest ALIAS gtest)
      add_library(GTest::gtest_main ALIAS gtest_main)
    else()
      message(FATAL_ERROR "GoogleTest not found: apt-get install libgtest-dev")
    endif()
  endif()
endif()
