"""TileLang's pass configs: `tilemlir.PassConfigKey` and the
`pass_configs=` of jit / compile, and `PassContext` (TVM's
`tvm.transform.PassContext`) that carries them to the compiles inside it.

A few keys have a meaning here (see HONOURED); every other key is accepted
with a one-line warning that names it."""

import enum
import warnings

from .._scoped import Scoped
from ..errors import caller_location

__all__ = ["PassConfigKey", "PassContext", "resolve_pass_configs", "HONOURED"]


class PassConfigKey(str, enum.Enum):
    """The names of TileLang's pass configs. A member is its config string,
    so `{PassConfigKey.TL_DISABLE_TMA_LOWER: True}` and
    `{"tl.disable_tma_lower": True}` mean the same."""

    TL_SIMPLIFY = "tl.Simplify"
    TL_DISABLE_BUFFER_INIT_CHECK = "tl.disable_buffer_init_check"
    TL_DISABLE_DATA_RACE_CHECK = "tl.disable_data_race_check"
    TL_DISABLE_PRELOWER_SEMANTIC_CHECK = "tl.disable_prelower_semantic_check"
    TL_DISABLE_WARP_SPECIALIZED = "tl.disable_warp_specialized"
    TL_ENABLE_FAST_MATH = "tl.enable_fast_math"
    TL_PTXAS_REGISTER_USAGE_LEVEL = "tl.ptxas_register_usage_level"
    TL_DEVICE_COMPILE_FLAGS = "tl.device_compile_flags"
    TL_EMIT_LINE_DIRECTIVES = "tl.emit_line_directives"
    TL_CONFIG_INDEX_BITWIDTH = "tl.config_index_bitwidth"
    TL_ENABLE_REDUCER_PLAN_VERBOSE = "tl.enable_reducer_plan_verbose"
    TL_LAYOUT_COST_MODEL = "tl.layout_cost_model"
    TL_REDUCER_FORCE_BASELINE = "tl.reducer_force_baseline"
    TL_DISABLE_TMA_LOWER = "tl.disable_tma_lower"
    TL_DISABLE_SAFE_MEMORY_ACCESS = "tl.disable_safe_memory_legalize"
    TL_DISABLE_VECTORIZE_256 = "tl.disable_vectorize_256"
    TL_ENABLE_ASYNC_COPY = "tl.enable_async_copy"
    TL_ENABLE_LOWER_LDGSTG = "tl.enable_lower_ldgstg"
    TL_ENABLE_LOWER_LDGSTG_PREDICATED = "tl.enable_lower_ldgstg_predicated"
    TL_ENABLE_VECTORIZE_PLANNER_VERBOSE = "tl.enable_vectorize_planner_verbose"
    TL_DISABLE_WGMMA = "tl.disable_wgmma"
    TL_DEBUG_MERGE_SHARED_MEMORY_ALLOCATIONS = "tl.debug_merge_shared_memory_allocations"
    TL_ENABLE_AGGRESSIVE_SHARED_MEMORY_MERGE = "tl.enable_aggressive_shared_memory_merge"
    TL_DISABLE_SHARED_MEMORY_REUSE = "tl.disable_shared_memory_reuse"
    TL_DISABLE_SHUFFLE_ELECT = "tl.disable_shuffle_elect"
    TL_DISABLE_LOOP_UNSWITCHING = "tl.disable_loop_unswitching"
    TL_DISABLE_THREAD_STORAGE_SYNC = "tl.disable_thread_storage_sync"
    TL_FORCE_LET_INLINE = "tl.force_let_inline"
    TL_AST_PRINT_ENABLE = "tl.ast_print_enable"
    TL_LAYOUT_VISUALIZATION_ENABLE = "tl.layout_visualization_enable"
    TL_LAYOUT_VISUALIZATION_FORMATS = "tl.layout_visualization_formats"
    TL_STORAGE_REWRITE_DETECT_INPLACE = "tl.storage_rewrite_detect_inplace"
    TIR_DISABLE_CSE = "tirx.disable_cse_tir"
    TIR_SIMPLIFY = "tirx.Simplify"
    TIR_DISABLE_STORAGE_REWRITE = "tirx.disable_storage_rewrite"
    TIR_DISABLE_VECTORIZE = "tirx.disable_vectorize"
    TIR_USE_ASYNC_COPY = "tirx.use_async_copy"
    TIR_ENABLE_DEBUG = "tirx.enable_debug"
    TIR_MERGE_STATIC_SMEM = "tirx.merge_static_smem"
    TIR_NOALIAS = "tirx.noalias"
    CUDA_KERNELS_OUTPUT_DIR = "cuda.kernels_output_dir"
    TL_DISABLE_OUT_OF_BOUND_WARNING = "tl.disable_out_of_bound_warning"
    TL_ENABLE_DUMP_IR = "tl.enable_dump_ir"
    TL_DUMP_IR_DIR = "tl.dump_ir_path"

    def __str__(self):
        return self.value


# What each honoured key does here: (value that asks for it, pass option of
# tile-apply-pass-configs, or None when the compiler always behaves so).
HONOURED = {
    PassConfigKey.TL_DISABLE_TMA_LOWER.value: (True, "disable-tma-lower"),
    PassConfigKey.TL_DISABLE_WARP_SPECIALIZED.value: (True, "disable-warp-specialized"),
    # f32 exp / exp2 in kernels are always ex2.approx.ftz here.
    PassConfigKey.TL_ENABLE_FAST_MATH.value: (True, None),
}

_warned = set()


def _key_name(key):
    return key.value if isinstance(key, PassConfigKey) else str(key)


def _warn_once(key, why):
    if key in _warned:
        return
    _warned.add(key)
    filename, line, _ = caller_location(1)
    warnings.warn_explicit(f"tilemlir: pass config '{key}' {why}", UserWarning,
                           filename or "<unknown>", line or 0)


def resolve_pass_configs(configs):
    """The options of tile-apply-pass-configs that `configs` (a dict of
    PassConfigKey or config strings, with the configs of the enclosing
    PassContext under them) ask for, as a sorted tuple of option names;
    warns once for each key that has no effect here."""
    merged = dict(PassContext.current_configs())
    merged.update({_key_name(k): v for k, v in (configs or {}).items()})
    options = []
    for key, value in sorted(merged.items()):
        if key not in HONOURED:
            _warn_once(key, "has no effect in tilemlir; it is accepted and ignored")
            continue
        wanted, option = HONOURED[key]
        if bool(value) == wanted:
            if option:
                options.append(option)
        elif option is None:
            _warn_once(key, f"= {value!r} cannot be honoured: tilemlir always compiles "
                            "f32 exp / exp2 in kernels to ex2.approx (fast math)")
    return tuple(options)


class PassContext(Scoped):
    """`with PassContext(config={...}):` (TVM's tvm.transform.PassContext):
    the kernels compiled inside take its pass configs (those given to
    compile / jit win). opt_level and the other arguments are accepted."""

    def __init__(self, opt_level=2, required_pass=None, disabled_pass=None, instruments=None,
                 config=None, **_):
        self.opt_level = opt_level
        self.config = {_key_name(k): v for k, v in (config or {}).items()}

    @classmethod
    def current(cls):
        entered = cls.entered()
        return entered[-1] if entered else cls()

    @classmethod
    def current_configs(cls):
        out = {}
        for ctx in cls.entered():
            out.update(ctx.config)
        return out
