"""The T. calls of thread block clusters (sm_90a): TileLang's
T.ClusterKernel is T.Kernel with cluster_dims; T.cluster_arrive /
T.cluster_arrive_relaxed / T.cluster_wait / T.cluster_sync (the cluster's
barrier) and T.block_rank_in_cluster become upstream `nvvm.cluster.*` ops and
the %cluster_ctarank register. Targets without clusters report them at the
user's line.

Part of the Translator (parser.py), which mixes these classes in."""

from .ir import Value


class ClusterOpsMixin:
    def _cluster_op(self, node, what, ops):
        self._args(node, [])
        self._in_kernel(f"T.{what}", node)
        if self.launch.get("cluster") is None:
            raise self.error(f"T.{what} needs a kernel launched in clusters: "
                             "T.ClusterKernel(..., cluster_dims=...) or "
                             "T.Kernel(..., cluster_dims=...)", node)
        for op in ops:
            self.b.emit(op, self.loc(node))

    def call_cluster_arrive(self, node):
        self._cluster_op(node, "cluster_arrive", ["nvvm.cluster.arrive"])

    def call_cluster_arrive_relaxed(self, node):
        self._cluster_op(node, "cluster_arrive_relaxed", ["nvvm.cluster.arrive.relaxed"])

    def call_cluster_wait(self, node):
        self._cluster_op(node, "cluster_wait", ["nvvm.cluster.wait"])

    def call_cluster_sync(self, node):
        self._cluster_op(node, "cluster_sync", ["nvvm.cluster.arrive", "nvvm.cluster.wait"])

    def call_block_rank_in_cluster(self, node):
        """The block's rank in its cluster (0 .. cluster size - 1), an i32."""
        self._cluster_op(node, "block_rank_in_cluster", [])
        ssa = self.b.fresh("cta_rank")
        self.b.emit(f"{ssa} = nvvm.read.ptx.sreg.cluster.ctarank : i32", self.loc(node))
        return Value(ssa, "i32")
