"""The examples in examples/ run and check themselves against numpy."""

import pytest

import tilemlir

from conftest import load_example


@pytest.fixture(scope="module")
def gemm():
    return load_example("gemm/example_gemm.py")


def test_gemm_default_size(gemm):
    latency = gemm.main()
    assert latency > 0


@pytest.mark.parametrize("M,N,K", [(200, 328, 136), (1, 257, 95), (65, 7, 33)])
def test_gemm_odd_shapes(gemm, M, N, K):
    assert gemm.main(M, N, K) > 0


def test_gemm_odd_shapes_small_tiles(gemm):
    assert gemm.main(200, 328, 136, block_M=64, block_N=32, block_K=16) > 0


def test_gemm_schedule():
    example = load_example("gemm/example_gemm_schedule.py")
    kernel = example.main()
    assert "define" in kernel.get_kernel_source()


def test_gemm_schedule_small():
    example = load_example("gemm/example_gemm_schedule.py")
    example.main(M=128, N=192, K=64, block_M=64, block_N=64, block_K=32)


def test_gemm_autotune_few_configs():
    example = load_example("gemm/example_gemm_autotune.py")
    configs = [
        dict(block_M=64, block_N=64, block_K=32, num_stages=2, enable_rasterization=True),
        dict(block_M=128, block_N=128, block_K=32, num_stages=3, enable_rasterization=False),
        dict(block_M=128, block_N=64, block_K=64, num_stages=2, enable_rasterization=True),
    ]
    result = example.main(M=256, N=192, K=128, configs=configs)
    assert result.config in configs
    assert result.latency > 0
    assert result.ref_latency > 0
    assert result.kernel.config == result.config
    assert len(result.results) == len(configs)
    assert all(err is None for _, _, err in result.results)


@pytest.mark.parametrize("is_causal", [True, False], ids=["causal", "full"])
def test_flash_attention(is_causal):
    example = load_example("flash_attention/example_mha_fwd.py")
    kernel = example.main(batch=1, heads=2, seq_len=200, dim=64, is_causal=is_causal)
    assert kernel.out_idx == [3]


def test_flash_attention_whole_key_blocks():
    # seq_len a multiple of block_N, not causal: nothing is masked (T.clear).
    example = load_example("flash_attention/example_mha_fwd.py")
    example.main(batch=1, heads=2, seq_len=128, dim=64, is_causal=False)


def test_flash_attention_two_batches_odd_seq():
    example = load_example("flash_attention/example_mha_fwd.py")
    example.main(batch=2, heads=1, seq_len=77, dim=32, is_causal=True)


def test_gemm_autotune_hopper_space(tmp_path, monkeypatch):
    # The Hopper search space: one warpgroup per 64 rows (per 128 for the
    # 256x128 tiles), 128-byte K rows, stages that fit in shared memory; its
    # kernels run as wgmma on sm_90a.
    example = load_example("gemm/example_gemm_autotune.py")
    configs = example.get_configs(4096, 4096, 4096, hopper=True)
    assert configs and all(c["thread_num"] == min(2 * c["block_M"], 256) and
                           c["block_K"] == 64 for c in configs)
    wide = next(c for c in configs if (c["block_M"], c["block_N"]) == (256, 128))
    assert wide["thread_num"] == 256
    kernel = tilemlir.compile(example.matmul(512, 512, 512, **wide), out_idx=[-1],
                              target="cuda -arch=sm_90a")
    assert "wgmma.mma_async.sync.aligned.m64n128k16" in kernel.get_kernel_source()
    assert {c["warp_specialize"] for c in configs} == {True, False}
    # C's TMA store is tried on and off where there is a producer warpgroup.
    assert {c["tma_store"] for c in configs if c["warp_specialize"]} == {True, False}
    assert all(c["num_stages"] * (c["block_M"] + c["block_N"]) * 128
               <= example.HOPPER_SHARED_BYTES for c in configs)
    monkeypatch.setenv("TILEMLIR_CACHE_DIR", str(tmp_path))
    kernel = tilemlir.compile(example.matmul(512, 512, 512, **configs[0]), out_idx=[-1],
                              target="cuda -arch=sm_90a")
    assert "wgmma.mma_async" in kernel.get_kernel_source()
    assert configs[0]["tma_store"] and "stmatrix" in kernel.get_kernel_source()
    # Clusters of two blocks, which multicast the tile they share.
    assert {c["cluster"] for c in configs} == {None, (2, 1), (1, 2)}
    clustered = next(c for c in configs if c["cluster"] == (1, 2))
    kernel = tilemlir.compile(example.matmul(512, 512, 512, **clustered), out_idx=[-1],
                              target="cuda -arch=sm_90a")
    assert "multicast::cluster" in kernel.get_kernel_source()
    # With an SM count, warp-specialized configurations come persistent too.
    persistent = [c for c in example.get_configs(4096, 4096, 4096, hopper=True, num_sms=132)
                  if c["persistent"]]
    assert persistent and all(c["persistent"] == 132 and c["warp_specialize"]
                              for c in persistent)
    kernel = tilemlir.compile(example.matmul(512, 512, 512, **persistent[0]), out_idx=[-1],
                              target="cuda -arch=sm_90a")
    assert "wgmma.mma_async" in kernel.get_kernel_source()


def test_gemm_autotune_clusters_on_the_cpu():
    # Clusters group blocks for the GPU only: on the CPU the rounded-up grid
    # (4 x 2 clusters' worth of 64 x 64 tiles for 200 x 136) still gives C.
    example = load_example("gemm/example_gemm_autotune.py")
    configs = [dict(block_M=64, block_N=64, block_K=32, num_stages=2, thread_num=128,
                    cluster=cluster) for cluster in [(2, 1), (1, 2)]]
    result = example.main(M=200, N=136, K=72, configs=configs)
    assert result.config in configs


def test_gemm_autotune_persistent_on_the_cpu():
    example = load_example("gemm/example_gemm_autotune.py")
    config = dict(block_M=64, block_N=64, block_K=32, num_stages=2, thread_num=128,
                  persistent=3)
    result = example.main(M=200, N=136, K=72, configs=[config])
    assert result.config == config


def test_gemm_persistent_example():
    # Fewer blocks than tiles (a 5 x 3 grid of tiles, edges partial): both
    # kernels check themselves against numpy.
    example = load_example("gemm/example_gemm_persistent.py")
    example.main(M=300, N=160, K=96, block_M=64, block_N=64, block_K=32, threads=128,
                 num_stages=2, sm_num=4)
