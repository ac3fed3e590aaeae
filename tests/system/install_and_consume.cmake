# Installs the built quadbin into a fresh prefix, moves the prefix, builds
# examples/hello_world against it with find_package(quadbin 0.1), and runs it.
# -DBUILD_DIR, -DSOURCE_DIR, -DWORK_DIR, -DCXX_FLAGS, -DLINKER_FLAGS
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
# A public API of a few headers: at most 15 installed (and the mpi
# component's, when it is built, under quadbin/mpi/: at most 2), none of
# the structures' own classes (their headers are internal), and the example
# below includes quadbin/quadbin.hpp, which includes every one of them, so
# none may need an uninstalled header.
file(GLOB_RECURSE headers RELATIVE ${WORK_DIR}/prefix ${WORK_DIR}/prefix/include/*.hpp)
set(mpi_headers ${headers})
list(FILTER mpi_headers INCLUDE REGEX "^include/quadbin/mpi/")
list(FILTER headers EXCLUDE REGEX "^include/quadbin/mpi/")
list(LENGTH mpi_headers mpi_count)
if(mpi_count GREATER 2)
  message(FATAL_ERROR "${mpi_count} installed headers of quadbin::mpi (at most 2): ${mpi_headers}")
endif()
list(LENGTH headers header_count)
if(header_count GREATER 15 OR header_count EQUAL 0)
  message(FATAL_ERROR "${header_count} installed headers (at most 15): ${headers}")
endif()
if(headers MATCHES "bin_grid|sweep_and_prune|quadtree\\.hpp|parallel\\.hpp")
  message(FATAL_ERROR "an internal header is installed: ${headers}")
endif()
# The package must be relocatable: it names its dependencies by their
# imported targets, never by a path of the machine that built it, and it
# is consumed from another folder than the one it was installed into.
file(GLOB exports ${WORK_DIR}/prefix/*/cmake/quadbin/*.cmake ${WORK_DIR}/prefix/*/*/cmake/quadbin/*.cmake)
foreach(export IN LISTS exports)
  file(READ ${export} text)
  if(text MATCHES "/usr/lib|/usr/include|${WORK_DIR}")
    message(FATAL_ERROR "${export} names an absolute path: ${CMAKE_MATCH_0}")
  endif()
endforeach()
if(NOT exports)
  message(FATAL_ERROR "no CMake package files under ${WORK_DIR}/prefix")
endif()
file(RENAME ${WORK_DIR}/prefix ${WORK_DIR}/moved)
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/hello_world -B ${WORK_DIR}/build
                        -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${WORK_DIR}/moved
                        "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}"
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the example against the installed quadbin failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the example failed: ${rc}")
endif()
execute_process(COMMAND ${WORK_DIR}/build/hello_world RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message("${out}")
if(rc OR NOT out MATCHES "quadbin [0-9]+\\.[0-9]+\\.[0-9]+: 501 bodies stepped")
  message(FATAL_ERROR "the example did not run to the end: ${rc}")
endif()
# With the mpi component installed: find_package(quadbin COMPONENTS mpi)
# finds MPI for it and a program linking quadbin::mpi builds.
if(mpi_count GREATER 0)
  file(WRITE ${WORK_DIR}/mpi_consumer/CMakeLists.txt
       "cmake_minimum_required(VERSION 3.25)\nproject(mpi_consumer CXX)\n"
       "find_package(quadbin 0.1 REQUIRED COMPONENTS mpi)\n"
       "add_executable(mpi_consumer main.cpp)\n"
       "target_link_libraries(mpi_consumer PRIVATE quadbin::mpi quadbin::quadbin)\n")
  file(WRITE ${WORK_DIR}/mpi_consumer/main.cpp
       "#include <quadbin/mpi/distributed_world.hpp>\n"
       "int main(int argc, char** argv) {\n  MPI_Init(&argc, &argv);\n"
       "  { quadbin::mpi::DistributedWorld w(MPI_COMM_WORLD, {}); }\n"
       "  MPI_Finalize();\n}\n")
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK_DIR}/mpi_consumer -B ${WORK_DIR}/mpi_build
                          -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${WORK_DIR}/moved
                          "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}"
                  RESULT_VARIABLE rc)
  if(NOT rc)
    execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/mpi_build RESULT_VARIABLE rc)
  endif()
  if(rc)
    message(FATAL_ERROR "a program on the installed quadbin::mpi did not build: ${rc}")
  endif()
endif()
