# `cmake --install build --prefix P`: the binary (bin/), the sandbox's worker script
# (share/structtest/, where the binary and the library look for it), the public headers
# (include/structtest/), the library and the CMake package (lib/cmake/structtest/), so
# that another project's find_package(structtest CONFIG) and
# target_link_libraries(x structtest::structtest) build against the public API.
#
# The library is one shared object, libstructtest.so, holding every structtest library
# whole: a program links one file, with nothing of structtest's third-party libraries
# (RE2, ICU, SQLite, ...) in its link line or its find_package calls, and only
# nlohmann/json in its include path, which structtest/sample.h needs. Installing the
# dozen static libraries instead would export them all and make every user find each
# of their dependencies. The binary and the tests link the static libraries as before.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

get_property(structtest_libraries GLOBAL PROPERTY STRUCTTEST_LIBRARIES)
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/structtest_shared.cc
     CONTENT "// libstructtest.so: its code is the static libraries', linked whole.\n")
add_library(structtest_shared SHARED ${CMAKE_BINARY_DIR}/structtest_shared.cc)
# Linked as usual (their third-party libraries with them), and each archive whole
# before that. $<LINK_LIBRARY:WHOLE_ARCHIVE,...> would say it in one place, but CMake
# refuses a library linked whole that another one links as usual, as these link each
# other.
set(structtest_archives)
foreach(library IN LISTS structtest_libraries)
  list(APPEND structtest_archives $<TARGET_FILE:${library}>)
endforeach()
target_link_options(structtest_shared PRIVATE LINKER:--whole-archive ${structtest_archives}
                                              LINKER:--no-whole-archive)
target_link_libraries(structtest_shared PRIVATE ${structtest_libraries}
                                        INTERFACE nlohmann_json::nlohmann_json)
# Every symbol the archives need is in them or in a library they name: checked when
# linking here rather than when a user links against it. (Not in a fuzzing build, whose
# sanitizer runtimes are linked into executables only.)
if(NOT STRUCTTEST_FUZZ)
  target_link_options(structtest_shared PRIVATE -Wl,--no-undefined)
endif()
target_include_directories(structtest_shared INTERFACE
    $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${CMAKE_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(structtest_shared INTERFACE cxx_std_20)
# Semver: before 1.0.0 a minor version may break the API, after it a major one.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(structtest_soversion ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
  set(structtest_compatibility SameMinorVersion)
else()
  set(structtest_soversion ${PROJECT_VERSION_MAJOR})
  set(structtest_compatibility SameMajorVersion)
endif()
set_target_properties(structtest_shared PROPERTIES
    OUTPUT_NAME structtest EXPORT_NAME structtest UNITY_BUILD OFF
    VERSION ${PROJECT_VERSION} SOVERSION ${structtest_soversion})

install(TARGETS structtest_shared EXPORT structtestTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/structtest DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(FILES ${CMAKE_BINARY_DIR}/include/structtest/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/structtest)
set(structtest_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/structtest)
install(EXPORT structtestTargets NAMESPACE structtest:: DESTINATION ${structtest_cmake_dir})
configure_package_config_file(cmake/structtestConfig.cmake.in
    ${CMAKE_BINARY_DIR}/structtestConfig.cmake INSTALL_DESTINATION ${structtest_cmake_dir})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/structtestConfigVersion.cmake
    COMPATIBILITY ${structtest_compatibility})
install(FILES ${CMAKE_BINARY_DIR}/structtestConfig.cmake
              ${CMAKE_BINARY_DIR}/structtestConfigVersion.cmake
        DESTINATION ${structtest_cmake_dir})
