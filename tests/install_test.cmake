# install_test: `cmake --install` of this build into a fresh prefix, then examples/ built
# as a project of its own that finds the installed package (find_package(structtest
# CONFIG), never the source tree) and run from outside the source tree; the installed
# binary's --version, and a code subtask scored by it (the worker script installed, with
# the code family's jobs beside it, from which the worker starts: checked with
# PYTHON, when given, by worker_files_check.py). Run by ctest as
#   cmake -DBUILD=dir -DSOURCE=dir -DWORK=dir -DCXX=compiler -DVERSION=x.y.z
#         [-DPYTHON=python3] -P install_test.cmake
foreach(var BUILD SOURCE WORK CXX VERSION)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "install_test: -D${var}= is missing")
  endif()
endforeach()

# run(WHAT cmd...): runs cmd in WORK, fails the test naming WHAT and showing the output.
function(run what)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install_test: ${what} failed (${rc}):\n${out}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(prefix ${WORK}/prefix)
run("cmake --install ${BUILD} --prefix ${prefix}"
    ${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix})
foreach(file bin/structtest share/structtest/structtest_worker.py
             share/structtest/structtest_code_strict.py
             share/structtest/structtest_code_paper.py
             share/structtest/structtest_code_generator.py
             include/structtest/checker.h include/structtest/version.h)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "install_test: ${prefix}/${file}: not installed")
  endif()
endforeach()

run("${prefix}/bin/structtest --version" ${prefix}/bin/structtest --version)
if(NOT run_output MATCHES "^structtest ${VERSION}\n")
  message(FATAL_ERROR "install_test: the installed structtest --version says:\n${run_output}")
endif()

if(PYTHON)
  run("worker_files_check.py on ${prefix}/share/structtest"
      ${PYTHON} ${SOURCE}/tests/worker_files_check.py ${PYTHON} ${prefix}/share/structtest)
endif()

# A code subtask: the installed binary finds the sandbox's worker in share/structtest/.
run("the installed structtest run on a code subtask"
    ${prefix}/bin/structtest run --model builtin/oracle --tasks add_print_statements --limit 1
    --out ${WORK}/code_run -q)

# The example as a user builds it: its own project, the installed package only.
run("configuring examples/ against ${prefix}"
    ${CMAKE_COMMAND} -S ${SOURCE}/examples -B ${WORK}/examples -G Ninja
    -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON)
file(STRINGS ${WORK}/examples/CMakeCache.txt found REGEX "^structtest_DIR:")
cmake_path(SET installed_package NORMALIZE "${prefix}/")
if(NOT found MATCHES "structtest_DIR:PATH=${installed_package}")
  message(FATAL_ERROR "install_test: examples/ found structtest elsewhere than ${prefix}: ${found}")
endif()
run("building examples/ against ${prefix}" ${CMAKE_COMMAND} --build ${WORK}/examples)
run("the installed example (api_example)" ${WORK}/examples/api_example ${WORK}/api_example_out)
if(NOT run_output MATCHES "pass")
  message(FATAL_ERROR "install_test: api_example printed no verdict:\n${run_output}")
endif()
message(STATUS "install_test: installed into ${prefix}, examples/ built against it and run")
