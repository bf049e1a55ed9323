# perfx's private link dependencies that have no CMake package of their own, as imported
# targets with stable names (perfx_dep::<name>). Included by the build (CMakeLists.txt) and
# by the installed perfxConfig.cmake: a static libperfx needs them when a program links it,
# and finding them again on the consumer's machine keeps the exported targets free of the
# build machine's absolute paths and of perfx's private PkgConfig:: names.
#
# In:  PERFX_DEPS_WANTED  optional dependencies to look for (traceevent, libpfm); the
#                         required ones (elfutils, libdeflate, opcodes, bfd, iberty) always.
# Out: PERFX_DEPS_FOUND   the optional ones found; PERFX_DEPS_MISSING required ones not found.

find_package(PkgConfig QUIET)
set(PERFX_DEPS_FOUND)
set(PERFX_DEPS_MISSING)

# perfx_dep::<name> from pkg-config modules.
function(_perfx_pkg_dep name)
  if(TARGET perfx_dep::${name})
    set(_perfx_dep_ok TRUE PARENT_SCOPE)
    return()
  endif()
  set(_perfx_dep_ok FALSE PARENT_SCOPE)
  if(NOT PKG_CONFIG_FOUND)
    return()
  endif()
  pkg_check_modules(_PERFX_DEP_${name} QUIET IMPORTED_TARGET ${ARGN})
  if(_PERFX_DEP_${name}_FOUND)
    add_library(perfx_dep::${name} INTERFACE IMPORTED)
    target_link_libraries(perfx_dep::${name} INTERFACE PkgConfig::_PERFX_DEP_${name})
    set(_perfx_dep_ok TRUE PARENT_SCOPE)
  endif()
endfunction()

# perfx_dep::<name> from a plain library file (binutils' libopcodes/libbfd, libiberty.a).
function(_perfx_lib_dep name)
  if(TARGET perfx_dep::${name})
    set(_perfx_dep_ok TRUE PARENT_SCOPE)
    return()
  endif()
  find_library(PERFX_DEP_${name}_LIBRARY NAMES ${ARGN})
  if(PERFX_DEP_${name}_LIBRARY)
    add_library(perfx_dep::${name} UNKNOWN IMPORTED)
    set_target_properties(perfx_dep::${name} PROPERTIES
      IMPORTED_LOCATION "${PERFX_DEP_${name}_LIBRARY}")
    set(_perfx_dep_ok TRUE PARENT_SCOPE)
  else()
    set(_perfx_dep_ok FALSE PARENT_SCOPE)
  endif()
endfunction()

_perfx_pkg_dep(elfutils libelf libdw)
if(NOT _perfx_dep_ok)
  list(APPEND PERFX_DEPS_MISSING "libelf/libdw (elfutils)")
endif()
_perfx_pkg_dep(libdeflate libdeflate)
if(NOT _perfx_dep_ok)
  list(APPEND PERFX_DEPS_MISSING libdeflate)
endif()
_perfx_lib_dep(opcodes opcodes)
if(NOT _perfx_dep_ok)
  list(APPEND PERFX_DEPS_MISSING "libopcodes (binutils-dev)")
endif()
_perfx_lib_dep(bfd bfd)
if(NOT _perfx_dep_ok)
  list(APPEND PERFX_DEPS_MISSING "libbfd (binutils-dev)")
endif()
_perfx_lib_dep(iberty libiberty.a iberty)
if(NOT _perfx_dep_ok)
  list(APPEND PERFX_DEPS_MISSING "libiberty (libiberty-dev)")
endif()
if(traceevent IN_LIST PERFX_DEPS_WANTED)
  _perfx_pkg_dep(traceevent libtraceevent)
  if(_perfx_dep_ok)
    list(APPEND PERFX_DEPS_FOUND traceevent)
  endif()
endif()
if(libpfm IN_LIST PERFX_DEPS_WANTED)
  _perfx_pkg_dep(libpfm libpfm)
  if(_perfx_dep_ok)
    list(APPEND PERFX_DEPS_FOUND libpfm)
  endif()
endif()
unset(_perfx_dep_ok)
