// Flash-attention forward (online softmax), one head per block column:
// q, k, v, o [B*H, S, 64] f16, grid (ceil(S / 64), B*H), 64 queries per
// block, 64-key K/V tiles in a tile.pipelined loop: S = Q K^T (gemm
// transpose_b, clear_accum) into an f32 fragment, scale by 1/sqrt(64), mask
// with arith.select in a tile.parallel (key index < S, and <= query index
// when causal), running max / sum and rescale of the accumulator, P (f16)
// times V, final divide. One call of @attn_all runs four problems (arguments
// 4p .. 4p + 3: q, k, v, o): non-causal [2, 200, 64], causal [2, 200, 64],
// causal [3, 77, 64] (S not a multiple of 64) and non-causal [1, 128, 64].
// RUN: tile-run %s --entry=attn_all --seed=1 \
// RUN:   --arg=f16:2x200x64 --arg=f16:2x200x64 --arg=f16:2x200x64 --arg=f16:2x200x64:poison \
// RUN:   --arg=f16:2x200x64 --arg=f16:2x200x64 --arg=f16:2x200x64 --arg=f16:2x200x64:poison \
// RUN:   --arg=f16:3x77x64 --arg=f16:3x77x64 --arg=f16:3x77x64 --arg=f16:3x77x64:poison \
// RUN:   --arg=f16:1x128x64 --arg=f16:1x128x64 --arg=f16:1x128x64 --arg=f16:1x128x64:poison \
// RUN:   --save=%t
// RUN: %python %S/check.py %t \
// RUN:   --out 3 --ref "attention(in0, in1, in2)" \
// RUN:   --out 7 --ref "attention(in4, in5, in6, causal=True)" \
// RUN:   --out 11 --ref "attention(in8, in9, in10, causal=True)" \
// RUN:   --out 15 --ref "attention(in12, in13, in14)" \
// RUN:   --rtol 5e-3 --atol 1e-3 | FileCheck %s

// CHECK: out3: ok
// CHECK: out7: ok
// CHECK: out11: ok
// CHECK: out15: ok

func.func @attn(%Q: memref<?x?x64xf16>, %K: memref<?x?x64xf16>, %V: memref<?x?x64xf16>, %O: memref<?x?x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %BH = memref.dim %Q, %c0 : memref<?x?x64xf16>
  %S = memref.dim %Q, %c1 : memref<?x?x64xf16>
  %gx = arith.ceildivui %S, %c64 : index
  %nkv = arith.ceildivui %S, %c64 : index
  tile.kernel (%bx, %by) in (%gx, %BH) threads(128) {
    %neg_inf = arith.constant 0xFF800000 : f32
    %Qs = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %Ks = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %Vs = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %Ps = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %Sf = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %Of = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %mx = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %mprev = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %alpha = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %l = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %rs = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %m0 = arith.muli %bx, %c64 : index
    tile.copy %Q[%by, %m0, 0] [1, 64, 64] to %Qs : memref<?x?x64xf16> to memref<64x64xf16, #tile.scope<shared>>
    tile.clear %Of : memref<64x64xf32, #tile.scope<fragment>>
    tile.clear %l : memref<64xf32, #tile.scope<fragment>>
    tile.fill %mx, %neg_inf : memref<64xf32, #tile.scope<fragment>>, f32
    %nk = arith.addi %nkv, %c0 : index
    tile.pipelined %k = %c0 to %nk step %c1 num_stages = 2 {
      %n0 = arith.muli %k, %c64 : index
      tile.copy %K[%by, %n0, 0] [1, 64, 64] to %Ks : memref<?x?x64xf16> to memref<64x64xf16, #tile.scope<shared>>
      tile.copy %V[%by, %n0, 0] [1, 64, 64] to %Vs : memref<?x?x64xf16> to memref<64x64xf16, #tile.scope<shared>>
      // S = Q K^T (the accumulator is cleared by the gemm).
      tile.gemm %Qs, %Ks, %Sf {transpose_b, clear_accum} : memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
      tile.copy %mx to %mprev : memref<64xf32, #tile.scope<fragment>> to memref<64xf32, #tile.scope<fragment>>
      // Scale by 1/sqrt(64) and mask: keys past the sequence end.
      tile.parallel (%i, %j) in (64, 64) {
        %scale = arith.constant 0.125 : f32
        %kj = arith.addi %n0, %j : index
        %inb = arith.cmpi ult, %kj, %S : index
        %s = memref.load %Sf[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
        %ss = arith.mulf %s, %scale : f32
        %v = arith.select %inb, %ss, %neg_inf : f32
        memref.store %v, %Sf[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
      }
      // Running max: mx = max(mprev, rowmax(S)).
      tile.reduce max %Sf into %mx dim = 1 {clear = false} : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
      tile.parallel (%i) in (64) {
        %mp = memref.load %mprev[%i] : memref<64xf32, #tile.scope<fragment>>
        %mn = memref.load %mx[%i] : memref<64xf32, #tile.scope<fragment>>
        %d = arith.subf %mp, %mn : f32
        %a = math.exp %d : f32
        memref.store %a, %alpha[%i] : memref<64xf32, #tile.scope<fragment>>
      }
      tile.parallel (%i, %j) in (64, 64) {
        %s = memref.load %Sf[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
        %mn = memref.load %mx[%i] : memref<64xf32, #tile.scope<fragment>>
        %d = arith.subf %s, %mn : f32
        %p = math.exp %d : f32
        memref.store %p, %Sf[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
      }
      tile.reduce sum %Sf into %rs dim = 1 : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
      // l = l * alpha + rowsum(P); O = O * alpha.
      tile.parallel (%i) in (64) {
        %li = memref.load %l[%i] : memref<64xf32, #tile.scope<fragment>>
        %a = memref.load %alpha[%i] : memref<64xf32, #tile.scope<fragment>>
        %r = memref.load %rs[%i] : memref<64xf32, #tile.scope<fragment>>
        %la = arith.mulf %li, %a : f32
        %ln = arith.addf %la, %r : f32
        memref.store %ln, %l[%i] : memref<64xf32, #tile.scope<fragment>>
      }
      tile.parallel (%i, %j) in (64, 64) {
        %o = memref.load %Of[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
        %a = memref.load %alpha[%i] : memref<64xf32, #tile.scope<fragment>>
        %oa = arith.mulf %o, %a : f32
        memref.store %oa, %Of[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
      }
      // O += P V, with P in f16.
      tile.copy %Sf to %Ps : memref<64x64xf32, #tile.scope<fragment>> to memref<64x64xf16, #tile.scope<shared>>
      tile.gemm %Ps, %Vs, %Of : memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    }
    tile.parallel (%i, %j) in (64, 64) {
      %o = memref.load %Of[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
      %li = memref.load %l[%i] : memref<64xf32, #tile.scope<fragment>>
      %r = arith.divf %o, %li : f32
      memref.store %r, %Of[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
    }
    tile.copy %Of to %O[%by, %m0, 0] [1, 64, 64] : memref<64x64xf32, #tile.scope<fragment>> to memref<?x?x64xf16>
  }
  return
}

func.func @attn_causal(%Q: memref<?x?x64xf16>, %K: memref<?x?x64xf16>, %V: memref<?x?x64xf16>, %O: memref<?x?x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %BH = memref.dim %Q, %c0 : memref<?x?x64xf16>
  %S = memref.dim %Q, %c1 : memref<?x?x64xf16>
  %gx = arith.ceildivui %S, %c64 : index
  %nkv = arith.ceildivui %S, %c64 : index
  tile.kernel (%bx, %by) in (%gx, %BH) threads(128) {
    %neg_inf = arith.constant 0xFF800000 : f32
    %Qs = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %Ks = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %Vs = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %Ps = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %Sf = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %Of = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %mx = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %mprev = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %alpha = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %l = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %rs = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %m0 = arith.muli %bx, %c64 : index
    tile.copy %Q[%by, %m0, 0] [1, 64, 64] to %Qs : memref<?x?x64xf16> to memref<64x64xf16, #tile.scope<shared>>
    tile.clear %Of : memref<64x64xf32, #tile.scope<fragment>>
    tile.clear %l : memref<64xf32, #tile.scope<fragment>>
    tile.fill %mx, %neg_inf : memref<64xf32, #tile.scope<fragment>>, f32
    // Causal: key tiles up to the diagonal one.
    %bx1 = arith.addi %bx, %c1 : index
    %nk = arith.minui %bx1, %nkv : index
    tile.pipelined %k = %c0 to %nk step %c1 num_stages = 2 {
      %n0 = arith.muli %k, %c64 : index
      tile.copy %K[%by, %n0, 0] [1, 64, 64] to %Ks : memref<?x?x64xf16> to memref<64x64xf16, #tile.scope<shared>>
      tile.copy %V[%by, %n0, 0] [1, 64, 64] to %Vs : memref<?x?x64xf16> to memref<64x64xf16, #tile.scope<shared>>
      // S = Q K^T (the accumulator is cleared by the gemm).
      tile.gemm %Qs, %Ks, %Sf {transpose_b, clear_accum} : memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
      tile.copy %mx to %mprev : memref<64xf32, #tile.scope<fragment>> to memref<64xf32, #tile.scope<fragment>>
      // Scale by 1/sqrt(64) and mask: keys past the sequence end and after the query.
      tile.parallel (%i, %j) in (64, 64) {
        %scale = arith.constant 0.125 : f32
        %kj = arith.addi %n0, %j : index
        %inb = arith.cmpi ult, %kj, %S : index
        %qi = arith.addi %m0, %i : index
        %causal = arith.cmpi ule, %kj, %qi : index
        %ok = arith.andi %inb, %causal : i1
        %s = memref.load %Sf[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
        %ss = arith.mulf %s, %scale : f32
        %v = arith.select %ok, %ss, %neg_inf : f32
        memref.store %v, %Sf[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
      }
      // Running max: mx = max(mprev, rowmax(S)).
      tile.reduce max %Sf into %mx dim = 1 {clear = false} : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
      tile.parallel (%i) in (64) {
        %mp = memref.load %mprev[%i] : memref<64xf32, #tile.scope<fragment>>
        %mn = memref.load %mx[%i] : memref<64xf32, #tile.scope<fragment>>
        %d = arith.subf %mp, %mn : f32
        %a = math.exp %d : f32
        memref.store %a, %alpha[%i] : memref<64xf32, #tile.scope<fragment>>
      }
      tile.parallel (%i, %j) in (64, 64) {
        %s = memref.load %Sf[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
        %mn = memref.load %mx[%i] : memref<64xf32, #tile.scope<fragment>>
        %d = arith.subf %s, %mn : f32
        %p = math.exp %d : f32
        memref.store %p, %Sf[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
      }
      tile.reduce sum %Sf into %rs dim = 1 : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
      // l = l * alpha + rowsum(P); O = O * alpha.
      tile.parallel (%i) in (64) {
        %li = memref.load %l[%i] : memref<64xf32, #tile.scope<fragment>>
        %a = memref.load %alpha[%i] : memref<64xf32, #tile.scope<fragment>>
        %r = memref.load %rs[%i] : memref<64xf32, #tile.scope<fragment>>
        %la = arith.mulf %li, %a : f32
        %ln = arith.addf %la, %r : f32
        memref.store %ln, %l[%i] : memref<64xf32, #tile.scope<fragment>>
      }
      tile.parallel (%i, %j) in (64, 64) {
        %o = memref.load %Of[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
        %a = memref.load %alpha[%i] : memref<64xf32, #tile.scope<fragment>>
        %oa = arith.mulf %o, %a : f32
        memref.store %oa, %Of[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
      }
      // O += P V, with P in f16.
      tile.copy %Sf to %Ps : memref<64x64xf32, #tile.scope<fragment>> to memref<64x64xf16, #tile.scope<shared>>
      tile.gemm %Ps, %Vs, %Of : memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    }
    tile.parallel (%i, %j) in (64, 64) {
      %o = memref.load %Of[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
      %li = memref.load %l[%i] : memref<64xf32, #tile.scope<fragment>>
      %r = arith.divf %o, %li : f32
      memref.store %r, %Of[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
    }
    tile.copy %Of to %O[%by, %m0, 0] [1, 64, 64] : memref<64x64xf32, #tile.scope<fragment>> to memref<?x?x64xf16>
  }
  return
}

func.func @attn_all(%q0: memref<?x?x64xf16>,
    %k0: memref<?x?x64xf16>,
    %v0: memref<?x?x64xf16>,
    %o0: memref<?x?x64xf16>,
    %q1: memref<?x?x64xf16>,
    %k1: memref<?x?x64xf16>,
    %v1: memref<?x?x64xf16>,
    %o1: memref<?x?x64xf16>,
    %q2: memref<?x?x64xf16>,
    %k2: memref<?x?x64xf16>,
    %v2: memref<?x?x64xf16>,
    %o2: memref<?x?x64xf16>,
    %q3: memref<?x?x64xf16>,
    %k3: memref<?x?x64xf16>,
    %v3: memref<?x?x64xf16>,
    %o3: memref<?x?x64xf16>) {
  call @attn(%q0, %k0, %v0, %o0) : (memref<?x?x64xf16>, memref<?x?x64xf16>, memref<?x?x64xf16>, memref<?x?x64xf16>) -> ()
  call @attn_causal(%q1, %k1, %v1, %o1) : (memref<?x?x64xf16>, memref<?x?x64xf16>, memref<?x?x64xf16>, memref<?x?x64xf16>) -> ()
  call @attn_causal(%q2, %k2, %v2, %o2) : (memref<?x?x64xf16>, memref<?x?x64xf16>, memref<?x?x64xf16>, memref<?x?x64xf16>) -> ()
  call @attn(%q3, %k3, %v3, %o3) : (memref<?x?x64xf16>, memref<?x?x64xf16>, memref<?x?x64xf16>, memref<?x?x64xf16>) -> ()
  return
}
