# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Helpers shared by the project's CMake files.

# remat_export_library(name [MLIR]): makes `name` part of find_package(Remat):
# the Remat::name alias, its include directories in the build and the
# install tree, and the RematTargets export set (cmake/install). MLIR: the
# sources include MLIR/LLVM headers, so they are built like Debian's LLVM
# (no RTTI).
#
# The MLIR-linked libraries are made with upstream's add_mlir_library (with
# EXCLUDE_FROM_LIBMLIR: no object library, they are never part of
# libMLIR.so) and DISABLE_INSTALL: its install would put them in an export
# set named MLIRTargets, which this project does not install, while the
# RematTargets export needs each library and its dependencies in it.
function(remat_export_library name)
  cmake_parse_arguments(ARG "MLIR" "" "" ${ARGN})
  add_library(Remat::${name} ALIAS ${name})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  if(ARG_MLIR)
    target_compile_options(${name} PRIVATE ${REMAT_LLVM_FLAGS})
  endif()
  set_property(GLOBAL APPEND PROPERTY REMAT_EXPORTED_LIBS ${name})
endfunction()

# remat_add_library(name SOURCES... [MLIR] [DEPENDS tgt...] [LINK lib...]):
# an exported library made with plain add_library (shared or static as
# BUILD_SHARED_LIBS decides): the plain C++ libraries (the solver, arena
# packing). MLIR links the MLIR and LLVM shared libraries; the MLIR-linked
# libraries of lib/ use add_mlir_library instead.
function(remat_add_library name)
  cmake_parse_arguments(ARG "MLIR" "" "DEPENDS;LINK" ${ARGN})
  add_library(${name} ${ARG_UNPARSED_ARGUMENTS})
  if(ARG_MLIR)
    target_link_libraries(${name} PUBLIC MLIR LLVM)
    remat_export_library(${name} MLIR)
  else()
    remat_export_library(${name})
  endif()
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  if(ARG_LINK)
    target_link_libraries(${name} PUBLIC ${ARG_LINK})
  endif()
endfunction()
