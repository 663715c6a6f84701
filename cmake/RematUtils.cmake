# Helpers shared by the project's CMake files.

# remat_add_library(name SOURCES... [MLIR] [DEPENDS tgt...] [LINK lib...])
# A shared-or-static library (BUILD_SHARED_LIBS decides) exported for
# find_package(Remat). MLIR: the sources include MLIR/LLVM headers, so they
# are built like LLVM (no RTTI) and link the MLIR and LLVM shared libraries.
function(remat_add_library name)
  cmake_parse_arguments(ARG "MLIR" "" "DEPENDS;LINK" ${ARGN})
  add_library(${name} ${ARG_UNPARSED_ARGUMENTS})
  add_library(Remat::${name} ALIAS ${name})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  if(ARG_MLIR)
    target_compile_options(${name} PRIVATE ${REMAT_LLVM_FLAGS})
    target_link_libraries(${name} PUBLIC MLIR LLVM)
  endif()
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  if(ARG_LINK)
    target_link_libraries(${name} PUBLIC ${ARG_LINK})
  endif()
  set_property(GLOBAL APPEND PROPERTY REMAT_EXPORTED_LIBS ${name})
endfunction()
