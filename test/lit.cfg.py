# -*- Python -*-
# lit configuration of the TileMLIR test suite (check-tile).

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TILE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".c"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tile_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%shlibext", config.llvm_shlib_ext))
config.substitutions.append(("%tile_src_root", config.tile_src_root))
config.substitutions.append(("%tile_lib_dir", config.tile_lib_dir))
config.substitutions.append(("%tile_obj_root", config.tile_obj_root))
config.substitutions.append(("%mlir_dir", config.mlir_dir))
config.substitutions.append(("%llvm_lib_dir", config.llvm_lib_dir))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%cxx", config.cxx_compiler))
config.substitutions.append(("%cc", config.c_compiler))
config.substitutions.append(("%python", config.python_executable))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

llvm_config.with_environment("PATH", config.tile_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tools = [
    "tile-opt",
    "tile-run",
    ToolSubst("mlir-opt", os.path.join(config.llvm_tools_dir, "mlir-opt")),
]
llvm_config.add_tool_substitutions(tools, [config.tile_tools_dir, config.llvm_tools_dir])

# ptxas of the CUDA toolkit: the tests that assemble the PTX of the NVIDIA
# lowering (REQUIRES: ptxas) are skipped without it.
if os.path.exists("/usr/local/cuda/bin/ptxas"):
    config.available_features.add("ptxas")
