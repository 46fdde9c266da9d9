# cmake --install into a temporary prefix, then C and C++ consumers on it
# (find_package and pkg-config), compared with the installed command.
set(install_test_flags "")
if(SPEEDQA_ASAN)
  set(install_test_flags "-fsanitize=address,undefined")
endif()
add_test(NAME InstallAndConsume
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/install_test.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/install_test "${install_test_flags}")
set_tests_properties(InstallAndConsume PROPERTIES TIMEOUT 900)
