# Device tests: they run on a machine with a GPU and skip, saying so, without one.
add_executable(speedqa_cuda_tests ${CMAKE_CURRENT_LIST_DIR}/fp_contract_test.cu ${CMAKE_CURRENT_LIST_DIR}/parity_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/vif_statistic_test.cu)
target_link_libraries(speedqa_cuda_tests PRIVATE speedqa speedqa_testsupport speedqa_golden_runs GTest::gtest GTest::gtest_main)
speedqa_cuda_target(speedqa_cuda_tests)
gtest_discover_tests(speedqa_cuda_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 1800 LABELS device)
