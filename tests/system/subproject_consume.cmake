# Configures tests/system/subproject (quadbin added with add_subdirectory) and
# checks that a consumer gets neither QUADBIN_WERROR nor a default build
# type, while the library still builds with -ffp-contract=off.
# -DSOURCE_DIR, -DWORK_DIR
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/system/subproject -B ${WORK_DIR} -G Ninja
                        -DQUADBIN_SOURCE_DIR=${SOURCE_DIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "configuring the add_subdirectory consumer failed: ${rc}\n${out}\n${err}")
endif()
if(NOT out MATCHES "consumer: QUADBIN_WERROR=OFF")
  message(FATAL_ERROR "a consumer got QUADBIN_WERROR on:\n${out}")
endif()
if(NOT out MATCHES "consumer: CMAKE_BUILD_TYPE=\\[\\]")
  message(FATAL_ERROR "quadbin set a consumer's build type:\n${out}")
endif()
if(out MATCHES "options=[^\n]*-Werror")
  message(FATAL_ERROR "a consumer's quadbin targets compile with -Werror:\n${out}")
endif()
if(NOT out MATCHES "options=[^\n]*-ffp-contract=off")
  message(FATAL_ERROR "the library lost -ffp-contract=off:\n${out}")
endif()
message(STATUS "add_subdirectory consumer: no -Werror, no build type, -ffp-contract=off kept")
