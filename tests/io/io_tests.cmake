# Tests of speedqa_io: video readers and score writers (included from
# tests/CMakeLists.txt, where GTest is already found).
add_executable(speedqa_io_tests
  ${CMAKE_CURRENT_LIST_DIR}/io_test_util.cpp
  ${CMAKE_CURRENT_LIST_DIR}/atomic_write_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/mapped_reader_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/number_format_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/recent_frames_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/score_writer_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stream_reader_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/y4m_test.cpp
)
if(SPEEDQA_HAVE_LIBAV)
  # encoded input, against the ffmpeg command
  target_sources(speedqa_io_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/decoded_reader_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/ffmpeg_clock_test.cpp)
  target_link_libraries(speedqa_io_tests PRIVATE speedqa_testsupport)
endif()
target_include_directories(speedqa_io_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(speedqa_io_tests PRIVATE speedqa_io GTest::gtest GTest::gtest_main Threads::Threads)
include(GoogleTest)
gtest_discover_tests(speedqa_io_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 60)
