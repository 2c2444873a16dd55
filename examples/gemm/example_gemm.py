"""The seed GEMM of TileLang's README, with `tilelang` replaced by `tilemlir`.

Runs on the default target (CPU here; numpy arrays in and out). The kernel
is TileLang's, line for line: a 128x128 output tile per block, K in steps
of 32 through a 3-stage pipeline, a ReLU epilogue.
"""

import numpy as np

import tilemlir
import tilemlir.language as T


@tilemlir.jit
def matmul(M, N, K, block_M, block_N, block_K, dtype="float16", accum_dtype="float"):

    @T.prim_func
    def matmul_relu_kernel(
            A: T.Tensor((M, K), dtype),
            B: T.Tensor((K, N), dtype),
            C: T.Tensor((M, N), dtype),
    ):
        # Initialize Kernel Context
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)

            # Enable rasterization for better L2 cache locality (Optional)
            # T.use_swizzle(panel_size=10, enable=True)

            # Clear local accumulation
            T.clear(C_local)

            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
                # Copy tile of A
                # This is a sugar syntax for parallelized copy
                T.copy(A[by * block_M, ko * block_K], A_shared)

                # Copy tile of B
                T.copy(B[ko * block_K, bx * block_N], B_shared)

                # Perform a tile-level GEMM on the shared buffers
                T.gemm(A_shared, B_shared, C_local)

            # relu
            for i, j in T.Parallel(block_M, block_N):
                C_local[i, j] = T.max(C_local[i, j], 0)

            # Copy result back to global memory
            T.copy(C_local, C[by * block_M, bx * block_N])

    return matmul_relu_kernel


def main(M=1024, N=1024, K=1024, block_M=128, block_N=128, block_K=32):
    # 1. Define the kernel (matmul) and compile/lower it into an executable module
    matmul_relu_kernel = matmul(M, N, K, block_M, block_N, block_K)

    # 2. Test the kernel with numpy data
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.empty((M, N), dtype=np.float16)

    matmul_relu_kernel(a, b, c)

    ref_c = np.maximum(a.astype(np.float32) @ b.astype(np.float32), 0)
    np.testing.assert_allclose(c.astype(np.float32), ref_c, rtol=1e-2, atol=1e-2)
    print("Kernel output matches the numpy reference.")

    # 3. Inspect the generated code (LLVM IR on the CPU)
    source = matmul_relu_kernel.get_kernel_source()
    print(f"Generated code: {len(source.splitlines())} lines of LLVM IR")

    # 4. Profile latency with the kernel
    profiler = matmul_relu_kernel.get_profiler(tensor_supply_type=tilemlir.TensorSupplyType.Normal)
    latency = profiler.do_bench()
    print(f"Latency: {latency} ms")
    return latency


if __name__ == "__main__":
    main()
