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
