# Helpers shared by every CMakeLists.txt of the tree.
#
# Libraries collect their sources with a glob of their own directory, so a
# new file in a layer folder (src/io/, src/wire/, ...) needs no edit here: one idea per file, and adding a
# transport touches one file.
function(tw_glob out)
  file(GLOB _s CONFIGURE_DEPENDS ${ARGN})
  list(SORT _s)
  set(${out} ${_s} PARENT_SCOPE)
endfunction()

# tw_target_config(<name> <TW_CFG_...=value> ...): the target library (POSIX
# port) built again with other build options, for a program that needs a
# bigger ring or name table than the defaults. The options are PUBLIC:
# they change struct layouts, so every user of the library sees them.
function(tw_target_config name)
  get_property(_src GLOBAL PROPERTY TW_TARGET_SOURCES)
  add_library(${name} STATIC ${_src})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/include
                                     PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_compile_definitions(${name} PUBLIC ${ARGN} PRIVATE _GNU_SOURCE)
  target_link_libraries(${name} PUBLIC Threads::Threads)
endfunction()
