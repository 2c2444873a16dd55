// tile-lower-fp8-casts: conversions to and from f8E4M3FN / f8E5M2 become
// cvt instructions on sm_90a and integer code elsewhere; arithmetic on f8
// values runs in f32.
// RUN: tile-opt %s -split-input-file --tile-lower-fp8-casts=target=sm_90a | FileCheck %s --check-prefix=SM90
// RUN: tile-opt %s -split-input-file --tile-lower-fp8-casts=target=sm_80 | FileCheck %s --check-prefix=INT
// RUN: tile-opt %s -split-input-file --tile-lower-fp8-casts=target=cpu | FileCheck %s --check-prefix=INT
// RUN: tile-opt %s -split-input-file --tile-lower-fp8-casts=target=sm_90a --tile-lower-fp8-casts=target=sm_80 | FileCheck %s --check-prefix=NONE
// RUN: not tile-opt %s --tile-lower-fp8-casts=target=sm_42 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// Once lowered, only bitcasts touch f8 values.
// NONE-NOT: {{arith\.(truncf|extf|sitofp|uitofp|fptosi|fptoui|addf|maximumf).*f8E}}
// BAD: unknown target 'sm_42'

// One scalar: the pair is (x, x), the low byte taken.
// SM90-LABEL: func.func @scalar_trunc
// SM90: %[[P:.*]] = nvvm.convert.f32x2.to.f8x2 %[[X:.*]], %[[X]] {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16(f8E4M3FN)
// SM90: %[[B:.*]] = arith.trunci %[[P]] : i16 to i8
// SM90: arith.bitcast %[[B]] : i8 to f8E4M3FN
// INT-LABEL: func.func @scalar_trunc
// INT-NOT: nvvm.
// INT: arith.bitcast %{{.*}} : f32 to i32
// INT: arith.select
// INT: arith.trunci %{{.*}} : i32 to i8
// INT: arith.bitcast %{{.*}} : i8 to f8E4M3FN
func.func @scalar_trunc(%x: f32) -> f8E4M3FN {
  %h = arith.truncf %x : f32 to f8E4M3FN
  return %h : f8E4M3FN
}

// -----

// A vector converts two elements an instruction: element 0 is the second
// operand (the low byte), element 1 the first.
// SM90-LABEL: func.func @vector_trunc
// SM90: %[[X0:.*]] = vector.extract %[[V:.*]][0] : f32 from vector<4xf32>
// SM90: %[[X1:.*]] = vector.extract %[[V]][1]
// SM90: %[[X2:.*]] = vector.extract %[[V]][2]
// SM90: %[[X3:.*]] = vector.extract %[[V]][3]
// SM90: nvvm.convert.f32x2.to.f8x2 %[[X1]], %[[X0]] {{.*}} : i16(f8E5M2)
// SM90: nvvm.convert.f32x2.to.f8x2 %[[X3]], %[[X2]] {{.*}} : i16(f8E5M2)
// SM90-NOT: nvvm.convert
// SM90: vector.from_elements {{.*}} : vector<4xf8E5M2>
func.func @vector_trunc(%v: vector<4xf32>) -> vector<4xf8E5M2> {
  %h = arith.truncf %v : vector<4xf32> to vector<4xf8E5M2>
  return %h : vector<4xf8E5M2>
}

// -----

// f8 to f16 pairs, then f16 to f32 (exact).
// SM90-LABEL: func.func @scalar_ext
// SM90: %[[B:.*]] = arith.bitcast %{{.*}} : f8E5M2 to i8
// SM90: %[[V:.*]] = vector.from_elements %[[B]], %[[B]] : vector<2xi8>
// SM90: %[[H:.*]] = nvvm.convert.f8x2.to.f16x2 %[[V]] : vector<2xi8>(f8E5M2) -> vector<2xf16>
// SM90: %[[E:.*]] = vector.extract %[[H]][0]
// SM90: arith.extf %[[E]] : f16 to f32
// SM90-NOT: vector.extract
// INT-LABEL: func.func @scalar_ext
// INT: arith.extui %{{.*}} : i8 to i32
// INT: arith.uitofp
// INT: arith.bitcast %{{.*}} : i32 to f32
func.func @scalar_ext(%h: f8E5M2) -> f32 {
  %x = arith.extf %h : f8E5M2 to f32
  return %x : f32
}

// -----

// Arithmetic in f32; to bf16 through f32 (exact); integers through f32.
// SM90-LABEL: func.func @arith_and_ints
// SM90-NOT: arith.addf {{.*}} : f8
// SM90: arith.addf {{.*}} : f32
// SM90: nvvm.convert.f32x2.to.f8x2
// SM90: arith.truncf %{{.*}} : f32 to bf16
// SM90: arith.fptosi %{{.*}} : f32 to i32
// SM90: arith.sitofp %{{.*}} : i32 to f32
func.func @arith_and_ints(%a: f8E4M3FN, %b: f8E4M3FN, %i: i32) -> (f8E4M3FN, bf16, i32, f8E4M3FN) {
  %s = arith.addf %a, %b : f8E4M3FN
  %w = arith.extf %s : f8E4M3FN to bf16
  %n = arith.fptosi %a : f8E4M3FN to i32
  %f = arith.sitofp %i : i32 to f8E4M3FN
  return %s, %w, %n, %f : f8E4M3FN, bf16, i32, f8E4M3FN
}

// -----

// Other conversions are left alone.
// SM90-LABEL: func.func @not_fp8
// SM90: arith.truncf %{{.*}} : f32 to f16
// SM90-NOT: nvvm
func.func @not_fp8(%x: f32) -> f16 {
  %h = arith.truncf %x : f32 to f16
  return %h : f16
}

// -----

// Two scalar truncations in one block share a cvt where the first one's
// uses come after the second; the first value is the low byte.
// SM90-LABEL: func.func @paired_scalars
// SM90: %[[P:.*]] = nvvm.convert.f32x2.to.f8x2 %[[Y:.*]], %[[X:.*]] {{.*}} : i16(f8E4M3FN)
// SM90-NOT: nvvm.convert.f32x2.to.f8x2
// SM90: memref.store
// SM90: memref.store
// SM90: nvvm.convert.f32x2.to.f8x2 %[[Z:.*]], %[[Z]]
func.func @paired_scalars(%x: f32, %y: f32, %z: f32, %m: memref<4xf8E4M3FN>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = arith.truncf %x : f32 to f8E4M3FN
  %b = arith.truncf %y : f32 to f8E4M3FN
  memref.store %a, %m[%c0] : memref<4xf8E4M3FN>
  memref.store %b, %m[%c1] : memref<4xf8E4M3FN>
  %c = arith.truncf %z : f32 to f8E4M3FN
  memref.store %c, %m[%c2] : memref<4xf8E4M3FN>
  return
}
