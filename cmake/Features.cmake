# Helpers for feature modules (src/features/<name>/).
#
#   speedqa_feature(NAME adm SOURCES adm.cpp ... [AVX2 x86/adm_avx2.cpp ...] [AVX512 x86/adm_avx512.cpp ...])
#     the static library speedqa_feature_<name>: the module's options, plan,
#     arithmetic and CPU kernels; files under AVX2 / AVX512 are built for that
#     instruction set (x86-64 only) and must be picked at run time.
#   speedqa_feature_tests(NAME adm SOURCES tests/adm_test.cpp ...)
#     the test program speedqa_<name>_tests (GoogleTest, in ctest).

set(SPEEDQA_AVX2_FLAGS -mavx2 -mfma -mbmi -mbmi2)
set(SPEEDQA_AVX512_FLAGS -mavx512f -mavx512bw -mavx512dq -mavx512vl -mavx512cd -mavx2 -mfma -mbmi -mbmi2
    -Wno-maybe-uninitialized -Wno-uninitialized)
set(SPEEDQA_X86 OFF)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|i.86")
  set(SPEEDQA_X86 ON)
endif()

function(speedqa_feature)
  cmake_parse_arguments(F "" "NAME" "SOURCES;AVX2;AVX512" ${ARGN})
  set(target speedqa_feature_${F_NAME})
  add_library(${target} STATIC ${F_SOURCES})
  if(SPEEDQA_X86)
    target_sources(${target} PRIVATE ${F_AVX2} ${F_AVX512})
    foreach(src ${F_AVX2})
      set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS "${SPEEDQA_AVX2_FLAGS}")
    endforeach()
    foreach(src ${F_AVX512})
      set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS "${SPEEDQA_AVX512_FLAGS}")
    endforeach()
    target_compile_definitions(${target} PRIVATE SPEEDQA_X86=1)
  endif()
  target_link_libraries(${target} PUBLIC speedqa_core)
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  set_property(GLOBAL APPEND PROPERTY SPEEDQA_FEATURE_LIBS ${target})
endfunction()

function(speedqa_feature_tests)
  cmake_parse_arguments(F "" "NAME" "SOURCES" ${ARGN})
  if(NOT SPEEDQA_BUILD_TESTS)
    return()
  endif()
  set(target speedqa_${F_NAME}_tests)
  add_executable(${target} ${F_SOURCES})
  target_link_libraries(${target} PRIVATE speedqa_feature_${F_NAME} speedqa_cpu speedqa_testsupport GTest::gtest GTest::gtest_main)
  include(GoogleTest)
  gtest_discover_tests(${target} DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 1800)
endfunction()
