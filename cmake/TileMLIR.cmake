# add_tile_library(name sources... LINK_LIBS libs... DEPENDS targets...)
# A TileMLIR library: links libMLIR.so, is installed and exported in the
# TileMLIR CMake package. In the wheel's build (TILE_WHEEL) it links nothing of
# LLVM/MLIR: the compiler library links their static archives once.
function(add_tile_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK_LIBS" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  add_dependencies(${name} mlir-headers)
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${TILE_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${TILE_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  target_include_directories(${name} SYSTEM PUBLIC
    ${MLIR_INCLUDE_DIRS} ${LLVM_INCLUDE_DIRS})
  if(TILE_WHEEL)
    target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS})
  else()
    target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS} MLIR LLVM)
  endif()
  set_property(GLOBAL APPEND PROPERTY TILE_EXPORTED_LIBS ${name})
  install(TARGETS ${name} EXPORT TileMLIRTargets
    ARCHIVE DESTINATION lib LIBRARY DESTINATION lib)
endfunction()
