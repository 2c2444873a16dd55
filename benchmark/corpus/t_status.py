"""The status of each of TileLang's T. names in TileMLIR: our notes, read by
t_names.py --markdown to write docs/python.md's language reference. A name
that tilemlir.language has is "supported" unless PARTIAL says what is
missing; a name it lacks takes its row from MISSING (by name) or BY_ORIGIN
(by the TileLang module that lists it)."""

PARTIAL = {
    "__ldg": "a plain load of the element (T.__ldg(x[i]) or T.__ldg(x, i)); the read-only "
             "cache is the target's choice",
    "attr": "TVM's 'reduce_scope' with a T.comm_reducer around T.tvm_thread_allreduce (as "
            "TileLang's GEMV example writes it); other keys are a located error",
    "comm_reducer": "a lambda of two values with one identity; reducers of several values are "
                    "a located error",
    "tvm_thread_allreduce": "one value, condition True, over thread indices of "
                            "T.get_thread_binding: xor shuffles among the lanes of a warp, "
                            "then shared memory across its warps (or for thread shapes that are "
                            "not powers of two)",
    "annotate_layout": "#tile.swizzle and T.Fragment pins of on-chip buffers; T.Layout on "
                       "global tensors (affine maps: tile-apply-tensor-layouts) and shared "
                       "buffers (the identity or a 128/64/32-byte swizzle); other layouts "
                       "are a located error",
    "Layout": "index functions built from + - * // % and shifts (affine maps), or an XOR "
              "swizzle of a shared buffer; on fragments use T.Fragment",
    "Fragment": "thread and register functions that are affine maps; replicas must be a "
                "whole set of owner threads apart (thread = owner + rep * owners)",
    "dynamic": "sizes a * n + b of one dimension in shapes (the runtime checks them); other "
               "arithmetic on dynamic dimensions is refused",
    "symbolic": "as T.dynamic",
    "StridedTensor": "strides of ints or T.dynamic names (not T.const ones), not of 4-bit "
                     "elements",
    "make_tensor": "row-major tensors at a T.ptr address (a parameter, or an element of a "
                   "T.Tensor(..., T.ptr) table); other strides are a located error",
    "ptr": "a 64-bit address: T.ptr parameters take a tensor or its data_ptr(), "
           "T.Tensor(..., T.ptr) tables are int64 tensors; read by T.make_tensor",
    "async_copy": "global -> shared only; completes as T.copy does (the compiler places the "
                  "waits), so T.ptx_wait_group has nothing left to wait for",
    **dict.fromkeys(["ptx_commit_group", "ptx_wait_group"],
                    "accepted around T.async_copy; nothing is outstanding to wait for"),
    "transpose": "the last two dimensions of on-chip tiles or regions of them",
    **dict.fromkeys(["cluster_arrive", "cluster_arrive_relaxed", "cluster_wait",
                     "cluster_sync", "block_rank_in_cluster", "ClusterKernel"],
                    "sm_90a (the cluster barrier and %cluster_ctarank); other targets report "
                    "them at the user's line"),
    "use_swizzle": "accepted; block rasterization does not change here",
    **dict.fromkeys(["alloc_barrier", "barrier_arrive", "barrier_wait", "mbarrier_arrive",
                     "mbarrier_wait_parity"],
                    "mbarriers of the block (nvgpu.mbarrier) on sm_90a and sm_80, allocated "
                    "in the kernel body itself; no cta_id (cluster) arrivals; the cpu target "
                    "reports them"),
    "tma_copy": "copies as T.copy does (the compiler picks the instruction), complete in each "
                "thread before its next arrive; the block copies together "
                "(leader_scope_threads is the block's thread count or left out); no "
                "cluster_mask",
    **dict.fromkeys(["tma_store_arrive", "tma_store_wait"],
                    "nothing to wait for: T.tma_copy's stores are complete when it returns"),
    "Persistent": "the persistent-kernel loop over tiles",
    **dict.fromkeys(["cumsum", "cummax"],
                    "shared, fragment (scanned whole) and local buffers and regions of shared "
                    "ones; dst a buffer of the same shape, not a global tensor; annotations= "
                    "accepted and unused"),
    "view": "global tensors with another shape, shared buffers with another shape and/or "
            "dtype of whole bytes; dtype views of global tensors and views of fragments and "
            "local buffers are located errors",
    "reinterpret": "integer and float scalars and vectors (T.float32x4 ...) of the same "
                   "width",
    **dict.fromkeys(["ldg32", "ldg64", "ldg128", "ldg256", "lds32", "lds64", "lds128",
                     "stg32", "stg64", "stg128", "stg256", "sts32", "sts64", "sts128"],
                    "one vector access where the address is aligned to the width (ld/st "
                    ".v2/.v4; 256 bits are two 128-bit accesses on sm_80 / sm_90a), element "
                    "by element elsewhere; words outside the tensor read 0 / are not written; "
                    "no L2 prefetch hint"),
}

MISSING = {
    **dict.fromkeys(["alloc_tmem", "deallocate_tmem", "alloc_descriptor", "tma_load_2sm",
                     "increase_descriptor_offset"],
                    "not supported: sm_100 tensor memory / descriptors (TileMLIR targets "
                    "sm_80 and sm_90a)"),
    **dict.fromkeys(["tma_load", "tma_gather4", "tma_gather4_bytes", "tma_scatter4",
                     "create_tma_descriptor", "fence_proxy_async"],
                    "not supported: hand-written TMA; T.copy lowers to TMA on sm_90a"),
    **dict.fromkeys(["mbarrier_expect_tx", "mbarrier_arrive_expect_tx"],
                    "not supported yet: expected transaction counts (they pair with "
                    "hand-written TMA loads; T.tma_copy's loads complete before the arrive)"),
    **dict.fromkeys(["set_max_nreg", "inc_max_nreg", "dec_max_nreg", "no_set_max_nreg",
                     "annotate_producer_reg_dealloc", "annotate_consumer_reg_alloc",
                     "disable_warp_group_reg_alloc"],
                    "not supported: register reallocation between warpgroups is chosen by "
                    "the sm_90a lowering"),
    **dict.fromkeys(["copy_cluster", "alloc_cluster_barrier", "ptx_arrive_cluster_barrier"],
                    "not supported: cluster-wide copies and barriers by hand (T.ClusterKernel, "
                    "the cluster barrier and TMA multicast of T.copy are)"),
    **dict.fromkeys(["clc_try_cancel", "clc_try_cancel_multicast", "clc_is_canceled",
                     "clc_get_first_ctaid_x", "clc_get_first_ctaid_y", "clc_get_first_ctaid_z"],
                    "not supported: cluster launch control is sm_100"),
    **dict.fromkeys(["WarpSpecialize", "WarpSpecializeFrame", "ws", "ws_op", "WSID", "WSInstr",
                     "WSOpRef", "WSPipeline", "WSRole", "WSSchedule", "WSScope", "WSSync",
                     "WSSyncKind", "annotate_ws_schedule"],
                    "not supported: hand-written warp specialization; the sm_90a lowering "
                    "specializes T.Pipelined loops itself"),
    **dict.fromkeys(["pdl_sync", "pdl_trigger"],
                    "not supported: programmatic dependent launch"),
    **dict.fromkeys(["rng_init", "rng_rand", "rng_rand_float"],
                    "not supported: in-kernel random numbers"),
    **dict.fromkeys(["CUDASourceCodeKernel", "import_source", "inline"],
                    "not supported: kernels written in CUDA C++ (there is no CUDA C++ "
                    "backend)"),
    **dict.fromkeys(["allocate", "access_ptr", "make_tensor_from_addr", "SharedBuffer",
                     "LocalBuffer", "FragmentBuffer"],
                    "not supported yet: buffers made from raw addresses (T.make_tensor of a "
                    "T.ptr is)"),
    **dict.fromkeys(["atomic_load", "atomic_store", "atomic_or"],
                    "not supported yet: memory-order atomics (T.atomic_add / max / min, "
                    "with return_prev=, and T.atomic_addx2 / x4 are)"),
    **dict.fromkeys(["im2col", "c2d_im2col"], "not supported yet: im2col copies"),
    **dict.fromkeys(["print"], "not supported yet: printing from a kernel"),
    **dict.fromkeys(["loop_break"], "not supported yet: leaving a loop early"),
    **dict.fromkeys(["clamp", "fast_rcp", "fma2", "add2", "sub2", "mul2", "max2", "min2",
                     "abs2", "ieee_add", "ieee_sub", "ieee_mul", "ieee_fmaf", "ieee_frcp",
                     "ieee_fsqrt", "ieee_frsqrt", "ieee_fdiv", "__exp", "__exp10", "__log",
                     "__log2", "__log10", "__sin", "__cos", "__tan"],
                    "not supported yet: packed, IEEE-rounded and fast-math spellings of "
                    "arithmetic (pass_configs' fast math applies to T.exp and friends)"),
    **dict.fromkeys(["reduce", "reduce_bitand", "reduce_bitor", "reduce_bitxor"],
                    "not supported yet: the generic and bitwise reductions (T.reduce_sum, "
                    "_max, _min, _abssum, _absmax are)"),
    **dict.fromkeys(["match_any_sync", "match_all_sync", "extract_lane",
                     "sync_global", "sync_grid", "named_barrier_arrive"],
                    "not supported yet: warp matching and grid-wide or named barriers"),
    **dict.fromkeys(["annotate_l2_hit_ratio", "annotate_min_blocks_per_sm",
                     "annotate_restrict_buffers", "annotate_compile_flags",
                     "annotate_pass_configs"],
                    "not supported yet: per-kernel hints (pass_configs= of tilemlir.jit is)"),
    **dict.fromkeys(["BaseTileScheduler", "PersistentTileScheduler"],
                    "not supported yet: tile schedulers (T.Persistent is)"),
    **dict.fromkeys(["cdiv"], "not in T. here: tilemlir.cdiv and T.ceildiv are"),
    **dict.fromkeys(["align_up", "index_to_coordinates", "any_of", "all_of"],
                    "not supported yet"),
    **dict.fromkeys(["get_let_value", "has_let_value", "meta_class", "JITFunc",
                     "KernelLaunchFrame", "PrimExpr", "Ref", "Any"],
                    "not supported: a TileLang front-end internal (its eager builder's types "
                    "and frames)"),
    **dict.fromkeys(["ptx_mma_sm70"], "not supported: sm_70"),
    **dict.fromkeys(["get_thread_extent", "get_thread_extents", "get_block_extent",
                     "get_block_extents"],
                    "not supported yet: thread and block extents (T.get_thread_binding, "
                    "T.get_block_binding and the warp and warp-group indices are)"),
}

BY_ORIGIN = {
    "tilelang.language.dtypes": "not supported yet: a dtype or vector dtype that kernels "
                                "cannot hold here",
    "tvm.tirx.script.builder.ir": "not supported: a TVM TIR-script name that TileLang "
                                  "re-exports; TileMLIR translates TileLang's tile language, "
                                  "not TVM script",
    "tvm.tirx.script.parser": "not supported: a TVM TIR-script name (see above)",
    "tilelang.language.tir.exports": "not supported: a PTX / TIR intrinsic written by hand; "
                                     "the tile ops lower to these instructions",
    "tilelang.language.tir.ir": "not supported: a TIR builder name",
    "tilelang.cuda.language.intrinsics": "not supported: a hand-written CUDA intrinsic; the "
                                         "tile ops lower to these instructions",
}


def status(name, origin, present):
    """(status, note) of T.<name>."""
    if present:
        return ("partial", PARTIAL[name]) if name in PARTIAL else ("supported", "")
    if name in MISSING:
        kind = "not supported" if MISSING[name].startswith("not supported:") else \
            "not supported yet"
        return kind, MISSING[name].split(": ", 1)[-1] if ": " in MISSING[name] else MISSING[name]
    note = BY_ORIGIN.get(origin, "not supported yet")
    return ("not supported", note.split(": ", 1)[1]) if note.startswith("not supported:") \
        else ("not supported yet", "")
