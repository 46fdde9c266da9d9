# What `cmake --install` puts in place:
#   bin/speedqa                          the command
#   include/speedqa/*                    the public C and C++ headers
#   lib/libspeedqa.a, lib/libspeedqa.so  the library, each one file holding every
#                                        internal library it needs (and, with the
#                                        CUDA engine, CUDA's static runtime)
#   lib/cmake/speedqa/                   find_package(speedqa): speedqa::speedqa (shared),
#                                        speedqa::speedqa_static
#   lib/pkgconfig/speedqa.pc             pkg-config
#   share/speedqa/models/                Netflix's model files and their licence
#   share/doc/speedqa/                   README and LICENSE, docs/ (what the README links to)
# The internal static libraries (speedqa_core, speedqa_feature_*, ...) stay
# what the command and the tests link; the two installed libraries are built
# from their objects.
include(CMakePackageConfigHelpers)

# Every internal static library `target` links, itself included.
function(speedqa_internal_closure target out)
  set(result ${${out}})
  if(NOT target IN_LIST result)
    list(APPEND result ${target})
    get_target_property(deps ${target} LINK_LIBRARIES)
    foreach(dep ${deps})
      if(TARGET ${dep} AND dep MATCHES "^speedqa")
        get_target_property(type ${dep} TYPE)
        if(type STREQUAL "STATIC_LIBRARY")
          speedqa_internal_closure(${dep} result)
        endif()
      endif()
    endforeach()
  endif()
  set(${out} ${result} PARENT_SCOPE)
endfunction()

set(speedqa_parts)
speedqa_internal_closure(speedqa speedqa_parts)
set(speedqa_objects)
foreach(part ${speedqa_parts})
  list(APPEND speedqa_objects $<TARGET_OBJECTS:${part}>)
endforeach()

# What a program linking the static library needs besides it (the shared
# library records the same in its DT_NEEDED): the C++ runtime, for C programs.
set(speedqa_system_libs stdc++ m Threads::Threads ${CMAKE_DL_LIBS})
set(speedqa_pc_private "-lstdc++ -lm -pthread")
foreach(lib ${CMAKE_DL_LIBS})
  string(APPEND speedqa_pc_private " -l${lib}")
endforeach()
if(SPEEDQA_HAVE_CUDA)
  # CUDA's static runtime needs librt (and libdl, pthreads, above)
  list(APPEND speedqa_system_libs rt)
  string(APPEND speedqa_pc_private " -lrt")
endif()

set(speedqa_public_include $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
# ABI version of the shared library: while the version is 0.x, each minor
# version may change the ABI, so it is part of the soname.
set(SPEEDQA_SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})

add_library(speedqa_static STATIC ${speedqa_objects})
target_include_directories(speedqa_static INTERFACE ${speedqa_public_include})
target_link_libraries(speedqa_static INTERFACE ${speedqa_system_libs})
set_target_properties(speedqa_static PROPERTIES OUTPUT_NAME speedqa EXPORT_NAME speedqa_static LINKER_LANGUAGE CXX
                      ARCHIVE_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib)
if(SPEEDQA_HAVE_CUDA)
  # the static runtime's members go into libspeedqa.a, so that linking it
  # needs no CUDA toolkit
  set(mri ${PROJECT_BINARY_DIR}/speedqa_static_cudart.mri)
  file(GENERATE OUTPUT ${mri} CONTENT
       "open $<TARGET_FILE:speedqa_static>\naddlib $<TARGET_FILE:CUDA::cudart_static>\nsave\nend\n")
  add_custom_command(TARGET speedqa_static POST_BUILD COMMAND ${CMAKE_AR} -M < ${mri}
                     COMMENT "Adding CUDA's static runtime to libspeedqa.a")
endif()

add_library(speedqa_shared SHARED ${speedqa_objects})
target_include_directories(speedqa_shared INTERFACE ${speedqa_public_include})
target_link_libraries(speedqa_shared PRIVATE Threads::Threads ${CMAKE_DL_LIBS})
if(SPEEDQA_HAVE_CUDA)
  target_link_libraries(speedqa_shared PRIVATE CUDA::cudart_static)
endif()
# Only the public API is exported (speedqa.map); every dependency must be
# named (-z defs), except where a sanitizer's runtime resolves at load time.
target_link_options(speedqa_shared PRIVATE -Wl,--version-script=${PROJECT_SOURCE_DIR}/cmake/speedqa.map)
if(NOT SPEEDQA_ASAN)
  target_link_options(speedqa_shared PRIVATE -Wl,-z,defs)
endif()
set_target_properties(speedqa_shared PROPERTIES OUTPUT_NAME speedqa EXPORT_NAME speedqa LINKER_LANGUAGE CXX
                      VERSION ${PROJECT_VERSION} SOVERSION ${SPEEDQA_SOVERSION}
                      LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib
                      LINK_DEPENDS ${PROJECT_SOURCE_DIR}/cmake/speedqa.map)
add_library(speedqa::speedqa ALIAS speedqa_shared)
add_library(speedqa::speedqa_static ALIAS speedqa_static)

install(TARGETS speedqa_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS speedqa_static speedqa_shared EXPORT speedqaTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/speedqa DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/models/ DESTINATION ${CMAKE_INSTALL_DATADIR}/speedqa/models)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
# the documents the README links to, where its links find them
file(GLOB speedqa_docs ${PROJECT_SOURCE_DIR}/docs/*.md ${PROJECT_SOURCE_DIR}/docs/*.svg)
install(FILES ${speedqa_docs} DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

set(speedqa_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/speedqa)
install(EXPORT speedqaTargets NAMESPACE speedqa:: DESTINATION ${speedqa_cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/speedqaConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/speedqaConfig.cmake INSTALL_DESTINATION ${speedqa_cmake_dir}
                              PATH_VARS CMAKE_INSTALL_DATADIR)
# 0.x: only the same minor version is compatible
write_basic_package_version_file(${PROJECT_BINARY_DIR}/speedqaConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/speedqaConfig.cmake ${PROJECT_BINARY_DIR}/speedqaConfigVersion.cmake
        DESTINATION ${speedqa_cmake_dir})

# The .pc file finds the prefix from its own place, so that an install
# moved elsewhere (or made with `cmake --install --prefix`) still works.
set(pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH speedqa_pc_prefix /${pc_dir} /)
string(REGEX REPLACE "/$" "" speedqa_pc_prefix "${speedqa_pc_prefix}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/speedqa.pc.in ${PROJECT_BINARY_DIR}/speedqa.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/speedqa.pc DESTINATION ${pc_dir})
