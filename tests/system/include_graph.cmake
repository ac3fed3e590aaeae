# The engine's include graph has no upward arrow: inside engine/src only
# world_impl.hpp (World::Impl, the World's own implementation) includes the
# public World header, and only the World's own sources (world*.cpp)
# include world_impl.hpp. The stages and stores of the step (bodies,
# contacts, solver, sensors, filters, snapshot, validation) depend on the
# public types headers (body, world_def) and on each other,
# never on the World. -DSOURCE_DIR
# The sources sit in folders by concern (engine/CMakeLists.txt) and include
# each other by that path, so that an include says where the file lives.
file(GLOB_RECURSE files RELATIVE ${SOURCE_DIR}/engine/src ${SOURCE_DIR}/engine/src/*.hpp
     ${SOURCE_DIR}/engine/src/*.cpp)
set(arrows 0)
foreach(f IN LISTS files)
  file(STRINGS ${SOURCE_DIR}/engine/src/${f} includes REGEX "^#include ")
  foreach(line IN LISTS includes)
    math(EXPR arrows "${arrows} + 1")
    get_filename_component(name ${f} NAME)
    if(line MATCHES "quadbin/(engine/world|quadbin)\\.hpp" AND NOT name STREQUAL "world_impl.hpp")
      message(FATAL_ERROR "engine/src/${f} includes the public World header (${line}): "
                          "include the types headers it needs (body, world_def)")
    endif()
    if(line MATCHES "world_impl\\.hpp\"" AND NOT name MATCHES "^world[a-z_]*\\.cpp$")
      message(FATAL_ERROR "engine/src/${f} includes world_impl.hpp: only the World's own "
                          "sources (world*.cpp) may")
    endif()
    if(line MATCHES "^#include \"([a-z_]+\\.hpp)\"")
      message(FATAL_ERROR "engine/src/${f}: ${line} names no folder: include engine/src's "
                          "headers by their path from engine/src (\"bodies/body_store.hpp\")")
    endif()
  endforeach()
endforeach()
list(LENGTH files count)
message(STATUS "engine/src: ${count} files, ${arrows} includes, none upward")
