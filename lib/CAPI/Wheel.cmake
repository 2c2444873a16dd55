# The wheel's libTileMLIRCAPI.so: LLVM, MLIR and lld's ELF linker linked
# statically from their archives, so that it needs only libc, libm, libstdc++
# and libgcc_s. The archives go in as one group: the linker takes from them
# only the objects that the TileMLIR libraries reach, and --gc-sections drops
# the unreferenced functions of those. The version script exports the C API
# and hides everything else (an LLVM that Triton or torch load into the same
# process stays apart).

# Debian's static archives; the test libraries among them link libMLIR.so
# and are left out.
file(GLOB TILE_MLIR_ARCHIVES ${LLVM_LIBRARY_DIR}/libMLIR*.a)
list(FILTER TILE_MLIR_ARCHIVES EXCLUDE REGEX "/libMLIR(Test|CAPI)[^/]*\\.a$")
file(GLOB TILE_LLVM_ARCHIVES ${LLVM_LIBRARY_DIR}/libLLVM*.a)
foreach(lib lldELF lldCommon)
  find_library(TILE_${lib}_ARCHIVE NAMES lib${lib}.a HINTS ${LLVM_LIBRARY_DIR}
    NO_DEFAULT_PATH)
  if(NOT TILE_${lib}_ARCHIVE)
    message(FATAL_ERROR "TILE_WHEEL needs lld's static libraries "
      "(Debian: liblld-22-dev); lib${lib}.a is not in ${LLVM_LIBRARY_DIR}")
  endif()
endforeach()
# zlib and zstd (LLVM's compression support) linked statically as well.
find_library(TILE_ZLIB_ARCHIVE NAMES libz.a REQUIRED)
find_library(TILE_ZSTD_ARCHIVE NAMES libzstd.a REQUIRED)

# C++ symbols of TileCAPI.cpp keep default visibility: the version script
# decides what is exported.
set_source_files_properties(TileCAPI.cpp PROPERTIES COMPILE_OPTIONS
  "-fvisibility=default")
target_link_libraries(TileMLIRCAPI PRIVATE
  TileMLIRRegistration TileMLIRRunner
  -Wl,--start-group ${TILE_lldELF_ARCHIVE} ${TILE_lldCommon_ARCHIVE}
  ${TILE_MLIR_ARCHIVES} ${TILE_LLVM_ARCHIVES} -Wl,--end-group
  ${TILE_ZSTD_ARCHIVE} ${TILE_ZLIB_ARCHIVE} dl m pthread)
set(TILE_CAPI_EXPORTS ${CMAKE_CURRENT_SOURCE_DIR}/TileCAPI.exports)
target_link_options(TileMLIRCAPI PRIVATE
  -Wl,--gc-sections -Wl,--as-needed -Wl,--no-undefined -Wl,-s
  -Wl,--version-script=${TILE_CAPI_EXPORTS})
set_property(TARGET TileMLIRCAPI APPEND PROPERTY LINK_DEPENDS
  ${TILE_CAPI_EXPORTS})

# The OpenMP runtime that CPU kernels call ships beside the library.
get_filename_component(TILE_LIBOMP_REAL ${TILE_LIBOMP} REALPATH)
add_custom_command(TARGET TileMLIRCAPI POST_BUILD
  COMMAND ${CMAKE_COMMAND} -E copy ${TILE_LIBOMP_REAL}
          ${CMAKE_BINARY_DIR}/lib/libomp.so.5)
