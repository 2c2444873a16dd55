"""Flash-attention forward (online softmax) in TileLang's style, with
`tilelang` replaced by `tilemlir`. Q, K, V and the output are
[batch, seq_len, heads, dim]; any seq_len (keys past the end are masked)."""

import numpy as np

import tilemlir
import tilemlir.language as T


@tilemlir.jit(out_idx=[3])
def flashattn(batch, heads, seq_len, dim, is_causal, block_M=128, block_N=64, num_stages=2,
              threads=256, dtype="float16"):
    scale = (1.0 / dim)**0.5 * 1.44269504  # log2(e)
    shape = [batch, seq_len, heads, dim]
    accum_dtype = "float"

    @T.macro
    def MMA0(K, Q_shared, K_shared, acc_s, k, bx, by, bz):
        T.copy(K[bz, k * block_N:(k + 1) * block_N, by, :], K_shared)
        # Only the key blocks that cross the diagonal (causal) or the end of
        # the sequence need a mask; the others start from zeros.
        masked = (k + 1) * block_N > seq_len
        if is_causal:
            masked = masked | ((k + 1) * block_N > bx * block_M + 1)
        if masked:
            for i, j in T.Parallel(block_M, block_N):
                q_idx = bx * block_M + i
                k_idx = k * block_N + j
                if is_causal:
                    acc_s[i, j] = T.if_then_else((q_idx >= k_idx) & (k_idx < seq_len), 0,
                                                 -T.infinity(acc_s.dtype))
                else:
                    acc_s[i, j] = T.if_then_else(k_idx < seq_len, 0, -T.infinity(acc_s.dtype))
        else:
            T.clear(acc_s)
        T.gemm(Q_shared, K_shared, acc_s, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)

    @T.macro
    def MMA1(V, V_shared, acc_s_cast, acc_o, k, by, bz):
        T.copy(V[bz, k * block_N:(k + 1) * block_N, by, :], V_shared)
        T.gemm(acc_s_cast, V_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)

    @T.macro
    def Softmax(acc_s, acc_s_cast, scores_max, scores_max_prev, scores_scale, scores_sum,
                logsum):
        T.copy(scores_max, scores_max_prev)
        T.fill(scores_max, -T.infinity(accum_dtype))
        T.reduce_max(acc_s, scores_max, dim=1, clear=False)
        # Rows whose keys are all masked keep a finite maximum.
        for i in T.Parallel(block_M):
            scores_max[i] = T.max(scores_max[i], scores_max_prev[i])
        for i in T.Parallel(block_M):
            scores_scale[i] = T.exp2(scores_max_prev[i] * scale - scores_max[i] * scale)
        for i, j in T.Parallel(block_M, block_N):
            acc_s[i, j] = T.exp2(acc_s[i, j] * scale - scores_max[i] * scale)
        T.reduce_sum(acc_s, scores_sum, dim=1)
        for i in T.Parallel(block_M):
            logsum[i] = logsum[i] * scores_scale[i] + scores_sum[i]
        T.copy(acc_s, acc_s_cast)

    @T.macro
    def Rescale(acc_o, scores_scale):
        for i, j in T.Parallel(block_M, dim):
            acc_o[i, j] *= scores_scale[i]

    @T.prim_func
    def main(
            Q: T.Tensor(shape, dtype),
            K: T.Tensor(shape, dtype),
            V: T.Tensor(shape, dtype),
            Output: T.Tensor(shape, dtype),
    ):
        with T.Kernel(T.ceildiv(seq_len, block_M), heads, batch, threads=threads) as (bx, by, bz):
            Q_shared = T.alloc_shared([block_M, dim], dtype)
            K_shared = T.alloc_shared([block_N, dim], dtype)
            V_shared = T.alloc_shared([block_N, dim], dtype)
            O_shared = T.alloc_shared([block_M, dim], dtype)
            acc_s = T.alloc_fragment([block_M, block_N], accum_dtype)
            acc_s_cast = T.alloc_fragment([block_M, block_N], dtype)
            acc_o = T.alloc_fragment([block_M, dim], accum_dtype)
            scores_max = T.alloc_fragment([block_M], accum_dtype)
            scores_max_prev = T.alloc_fragment([block_M], accum_dtype)
            scores_scale = T.alloc_fragment([block_M], accum_dtype)
            scores_sum = T.alloc_fragment([block_M], accum_dtype)
            logsum = T.alloc_fragment([block_M], accum_dtype)

            T.copy(Q[bz, bx * block_M:(bx + 1) * block_M, by, :], Q_shared)
            T.fill(acc_o, 0)
            T.fill(logsum, 0)
            T.fill(scores_max, -T.infinity(accum_dtype))

            loop_range = (
                T.min(T.ceildiv(seq_len, block_N), T.ceildiv(
                    (bx + 1) * block_M, block_N)) if is_causal else T.ceildiv(seq_len, block_N))

            for k in T.Pipelined(loop_range, num_stages=num_stages):
                MMA0(K, Q_shared, K_shared, acc_s, k, bx, by, bz)
                Softmax(acc_s, acc_s_cast, scores_max, scores_max_prev, scores_scale, scores_sum,
                        logsum)
                Rescale(acc_o, scores_scale)
                MMA1(V, V_shared, acc_s_cast, acc_o, k, by, bz)
            for i, j in T.Parallel(block_M, dim):
                acc_o[i, j] /= logsum[i]
            T.copy(acc_o, O_shared)
            T.copy(O_shared, Output[bz, bx * block_M:(bx + 1) * block_M, by, :])

    return main


def ref_program(Q, K, V, is_causal):
    q, k, v = (x.astype(np.float64).transpose(0, 2, 1, 3) for x in (Q, K, V))  # b h s d
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(q.shape[-1])
    if is_causal:
        s = scores.shape[-1]
        scores = np.where(np.tril(np.ones((s, s), dtype=bool)), scores, -np.inf)
    scores = np.exp(scores - scores.max(-1, keepdims=True))
    p = scores / scores.sum(-1, keepdims=True)
    return (p @ v).transpose(0, 2, 1, 3)


def main(batch=1, heads=2, seq_len=200, dim=64, is_causal=False):
    kernel = flashattn(batch, heads, seq_len, dim, is_causal)
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((batch, seq_len, heads, dim)).astype(np.float16)
               for _ in range(3))
    out = kernel(q, k, v)
    np.testing.assert_allclose(out.astype(np.float64), ref_program(q, k, v, is_causal),
                               rtol=2e-2, atol=2e-2)
    print(f"flash attention (causal={is_causal}, seq_len={seq_len}) matches the reference")
    return kernel


if __name__ == "__main__":
    main(is_causal=False)
    main(is_causal=True)
