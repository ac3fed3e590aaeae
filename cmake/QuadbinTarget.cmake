# quadbin_warnings(target): the warning set every quadbin target compiles with.
function(quadbin_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                           -Wno-sign-conversion)
  # GCC 12 and 13 report -Wrestrict false positives inside libstdc++'s
  # std::string at -O3 (GCC bug 105651): not ours to fix, so not an error.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 14)
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
  # The broad phases' box tests combine comparisons with & and | on purpose
  # (branch-free: every comparison is evaluated, no short circuit).
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    target_compile_options(${target} PRIVATE -Wno-bitwise-instead-of-logical)
  endif()
  if(QUADBIN_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# quadbin_layer(name SOURCES ... DEPS ...): one static library per layer,
# exported as quadbin::name, with its public headers under name/include.
function(quadbin_layer name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  set(target quadbin_${name})
  add_library(${target} STATIC ${ARG_SOURCES})
  add_library(quadbin::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name} OUTPUT_NAME quadbin_${name})
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
                                              $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(${target} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  target_compile_features(${target} PUBLIC cxx_std_20)
  quadbin_warnings(${target})
  # Determinism: results are bit-identical only if every build rounds the
  # same way. Contracting a * b + c into one fused multiply-add (GCC's
  # default outside ISO mode, clang's default, and what -march=native or an
  # ARM64 target would emit) rounds once instead of twice, so it is off for
  # the whole library, whatever the compiler, target or consumer's flags.
  target_compile_options(${target} PRIVATE -ffp-contract=off)
endfunction()
