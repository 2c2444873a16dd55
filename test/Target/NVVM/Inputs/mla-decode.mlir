// A DeepSeek-MLA-style decode kernel: 128 query heads of one KV head (a
// 512-wide latent part and a 64-wide rotary part), 512 keys, 64 heads per
// block on 256 threads (two warpgroups), 64-key tiles in a 2-stage
// pipelined loop. S = Q KV^T + Q_pe K_pe^T (64x64), an online softmax in
// registers, P = S as f16 through the shared tile P_s, O (64x512) += P KV.
// With 64 rows on two warpgroups, sm_90a splits N between them: S as two
// m64n32 wgmmas, O as two m64n256.
func.func @mla(%Q: memref<1x128x512xf16>, %Q_pe: memref<1x128x64xf16>,
               %KV: memref<1x512x1x512xf16>, %K_pe: memref<1x512x1x64xf16>,
               %O: memref<1x128x512xf16>) {
  tile.kernel (%bx, %by) in (2, 1) threads(256) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %neg_inf = arith.constant 0xFF800000 : f32
    // 1 / sqrt(576) * log2(e): softmax by exp2.
    %scale = arith.constant 0.0601122938 : f32
    %Q_s = tile.alloc_shared : memref<64x512xf16, #tile.scope<shared>>
    %Q_pe_s = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %KV_s = tile.alloc_shared : memref<64x512xf16, #tile.scope<shared>>
    %K_pe_s = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %P_s = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %O_s = tile.alloc_shared : memref<64x512xf16, #tile.scope<shared>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %acc = tile.alloc_fragment : memref<64x512xf32, #tile.scope<fragment>>
    %mx = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %mprev = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %alpha = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %rowsum = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %l = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %h0 = arith.muli %bx, %c64 : index
    tile.copy %Q[%by, %h0, 0] [1, 64, 512] to %Q_s : memref<1x128x512xf16> to memref<64x512xf16, #tile.scope<shared>>
    tile.copy %Q_pe[%by, %h0, 0] [1, 64, 64] to %Q_pe_s : memref<1x128x64xf16> to memref<64x64xf16, #tile.scope<shared>>
    tile.clear %acc : memref<64x512xf32, #tile.scope<fragment>>
    tile.clear %l : memref<64xf32, #tile.scope<fragment>>
    tile.fill %mx, %neg_inf : memref<64xf32, #tile.scope<fragment>>, f32
    tile.pipelined %k = %c0 to %c8 step %c1 num_stages = 2 {
      %n0 = arith.muli %k, %c64 : index
      tile.copy %KV[%by, %n0, 0, 0] [1, 64, 1, 512] to %KV_s : memref<1x512x1x512xf16> to memref<64x512xf16, #tile.scope<shared>>
      tile.copy %K_pe[%by, %n0, 0, 0] [1, 64, 1, 64] to %K_pe_s : memref<1x512x1x64xf16> to memref<64x64xf16, #tile.scope<shared>>
      tile.gemm %Q_s, %KV_s, %S {transpose_b, clear_accum, policy = #tile.policy<full_col>} : memref<64x512xf16, #tile.scope<shared>>, memref<64x512xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
      tile.gemm %Q_pe_s, %K_pe_s, %S {transpose_b, policy = #tile.policy<full_col>} : memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
      tile.copy %mx to %mprev : memref<64xf32, #tile.scope<fragment>> to memref<64xf32, #tile.scope<fragment>>
      tile.fill %mx, %neg_inf : memref<64xf32, #tile.scope<fragment>>, f32
      tile.reduce max %S into %mx dim = 1 {clear = false} : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
      tile.parallel (%i) in (64) {
        %a = memref.load %mx[%i] : memref<64xf32, #tile.scope<fragment>>
        %b = memref.load %mprev[%i] : memref<64xf32, #tile.scope<fragment>>
        %m = arith.maximumf %a, %b : f32
        memref.store %m, %mx[%i] : memref<64xf32, #tile.scope<fragment>>
        %ps = arith.mulf %b, %scale : f32
        %ms = arith.mulf %m, %scale : f32
        %d = arith.subf %ps, %ms : f32
        %e = math.exp2 %d : f32
        memref.store %e, %alpha[%i] : memref<64xf32, #tile.scope<fragment>>
      }
      tile.parallel (%i, %j) in (64, 64) {
        %s = memref.load %S[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
        %m = memref.load %mx[%i] : memref<64xf32, #tile.scope<fragment>>
        %ss = arith.mulf %s, %scale : f32
        %ms = arith.mulf %m, %scale : f32
        %d = arith.subf %ss, %ms : f32
        %e = math.exp2 %d : f32
        memref.store %e, %S[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
      }
      tile.reduce sum %S into %rowsum dim = 1 : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
      tile.copy %S to %P_s : memref<64x64xf32, #tile.scope<fragment>> to memref<64x64xf16, #tile.scope<shared>>
      tile.parallel (%i) in (64) {
        %lv = memref.load %l[%i] : memref<64xf32, #tile.scope<fragment>>
        %a = memref.load %alpha[%i] : memref<64xf32, #tile.scope<fragment>>
        %r = memref.load %rowsum[%i] : memref<64xf32, #tile.scope<fragment>>
        %la = arith.mulf %lv, %a : f32
        %n = arith.addf %la, %r : f32
        memref.store %n, %l[%i] : memref<64xf32, #tile.scope<fragment>>
      }
      tile.parallel (%i, %j) in (64, 512) {
        %o = memref.load %acc[%i, %j] : memref<64x512xf32, #tile.scope<fragment>>
        %a = memref.load %alpha[%i] : memref<64xf32, #tile.scope<fragment>>
        %r = arith.mulf %o, %a : f32
        memref.store %r, %acc[%i, %j] : memref<64x512xf32, #tile.scope<fragment>>
      }
      tile.gemm %P_s, %KV_s, %acc {policy = #tile.policy<full_col>} : memref<64x64xf16, #tile.scope<shared>>, memref<64x512xf16, #tile.scope<shared>>, memref<64x512xf32, #tile.scope<fragment>>
    }
    tile.parallel (%i, %j) in (64, 512) {
      %o = memref.load %acc[%i, %j] : memref<64x512xf32, #tile.scope<fragment>>
      %lv = memref.load %l[%i] : memref<64xf32, #tile.scope<fragment>>
      %r = arith.divf %o, %lv : f32
      memref.store %r, %acc[%i, %j] : memref<64x512xf32, #tile.scope<fragment>>
    }
    tile.copy %acc to %O_s : memref<64x512xf32, #tile.scope<fragment>> to memref<64x512xf16, #tile.scope<shared>>
    tile.copy %O_s to %O[%by, %h0, 0] [1, 64, 512] : memref<64x512xf16, #tile.scope<shared>> to memref<1x128x512xf16>
  }
  return
}
