# Position-independent copies of polyzero's static libraries, for the Python module.
#
# A shared object (the extension module) cannot take code compiled for an executable: the
# compiler's default here is -fPIE, which reaches globals of other shared libraries
# (std::cout) through relocations a shared object may not carry. The module therefore links
# `<lib>_pic` copies of the libraries it needs, built from the same sources with the same
# flags plus -fPIC, so the CLI and the test binaries keep their code untouched.

# pz_pic_copy(LIB [SOURCES file...] [LINKS lib...]) defines LIB_pic from LIB: its sources
# (or the given subset, paths relative to LIB's directory), include directories,
# definitions, options, per-file definitions and precompiled headers, and its links (or the
# given ones, for a subset); links to other pz_* libraries go to their _pic copies, which
# must be defined first.
function(pz_pic_copy lib)
  cmake_parse_arguments(ARG "" "" "SOURCES;LINKS" ${ARGN})
  get_target_property(dir ${lib} SOURCE_DIR)
  if(ARG_SOURCES)
    set(sources ${ARG_SOURCES})
  else()
    get_target_property(sources ${lib} SOURCES)
  endif()
  set(absolute_sources "")
  foreach(source IN LISTS sources)
    cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY "${dir}" OUTPUT_VARIABLE path)
    list(APPEND absolute_sources "${path}")
    get_source_file_property(definitions "${path}" DIRECTORY "${dir}" COMPILE_DEFINITIONS)
    if(definitions)
      set_source_files_properties("${path}" PROPERTIES COMPILE_DEFINITIONS "${definitions}")
    endif()
  endforeach()

  set(copy ${lib}_pic)
  add_library(${copy} STATIC EXCLUDE_FROM_ALL ${absolute_sources})
  set_target_properties(${copy} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${copy} PUBLIC $<TARGET_PROPERTY:${lib},INCLUDE_DIRECTORIES>)
  target_compile_definitions(${copy} PRIVATE $<TARGET_PROPERTY:${lib},COMPILE_DEFINITIONS>)
  target_compile_options(${copy} PRIVATE $<TARGET_PROPERTY:${lib},COMPILE_OPTIONS>)
  get_target_property(headers ${lib} PRECOMPILE_HEADERS)
  if(headers)
    target_precompile_headers(${copy} PRIVATE ${headers})
  endif()

  if(ARG_LINKS)
    set(links ${ARG_LINKS})
  else()
    get_target_property(links ${lib} LINK_LIBRARIES)
  endif()
  set(copy_links "")
  foreach(link IN LISTS links)
    if(link MATCHES "^pz_" AND TARGET ${link}_pic)
      list(APPEND copy_links ${link}_pic)
    elseif(link MATCHES "^pz_")
      message(FATAL_ERROR "pz_pic_copy(${lib}): define ${link}_pic first")
    elseif(link)
      list(APPEND copy_links ${link})
    endif()
  endforeach()
  target_link_libraries(${copy} PUBLIC ${copy_links})
endfunction()
