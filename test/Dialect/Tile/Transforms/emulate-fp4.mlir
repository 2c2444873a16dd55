// RUN: tile-opt %s --tile-emulate-fp4 --cse -split-input-file | FileCheck %s

// Tensors of f4E2M1FN become byte tensors with the innermost extent halved;
// a load reads the byte of element j (j / 2) and shifts its nibble out
// (by 4 * (j % 2): the even element in the low nibble).

// CHECK-LABEL: func.func @load
// CHECK-SAME: (%[[A:.*]]: memref<4x?xi8>, %[[I:.*]]: index, %[[J:.*]]: index) -> i4
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[ODD:.*]] = arith.andi %[[J]], %[[C1]] : index
// CHECK: %[[ODD8:.*]] = arith.index_castui %[[ODD]] : index to i8
// CHECK: %[[C2:.*]] = arith.constant 2 : i8
// CHECK: %[[SHIFT:.*]] = arith.shli %[[ODD8]], %[[C2]] : i8
// CHECK: %[[HALF:.*]] = arith.shrui %[[J]], %{{.*}} : index
// CHECK: %[[BYTE:.*]] = memref.load %[[A]][%[[I]], %[[HALF]]] : memref<4x?xi8>
// CHECK: %[[NIB:.*]] = arith.shrui %[[BYTE]], %[[SHIFT]] : i8
// CHECK: %[[V:.*]] = arith.trunci %[[NIB]] : i8 to i4
// CHECK: return %[[V]] : i4
func.func @load(%A: memref<4x?xf4E2M1FN>, %i: index, %j: index) -> f4E2M1FN {
  %v = memref.load %A[%i, %j] : memref<4x?xf4E2M1FN>
  return %v : f4E2M1FN
}

// -----

// A store into a tensor (memory other threads may write) clears and sets
// its nibble with two atomics on the byte: threads storing the two halves
// of one byte keep each other's nibble.

// CHECK-LABEL: func.func @store_global
// CHECK-SAME: (%[[A:.*]]: memref<8xi8>, %[[J:.*]]: index, %[[V:.*]]: i4)
// CHECK: %[[SHIFT:.*]] = arith.shli
// CHECK: %[[HALF:.*]] = arith.shrui %[[J]]
// CHECK: %[[W:.*]] = arith.extui %[[V]] : i4 to i8
// CHECK: %[[BITS:.*]] = arith.shli %[[W]], %[[SHIFT]] : i8
// CHECK: %[[F:.*]] = arith.constant 15 : i8
// CHECK: %[[MASK:.*]] = arith.shli %[[F]], %[[SHIFT]] : i8
// CHECK: %[[M1:.*]] = arith.constant -1 : i8
// CHECK: %[[KEEP:.*]] = arith.xori %[[MASK]], %[[M1]] : i8
// CHECK: memref.atomic_rmw andi %[[KEEP]], %[[A]][%[[HALF]]] : (i8, memref<8xi8>) -> i8
// CHECK: memref.atomic_rmw ori %[[BITS]], %[[A]][%[[HALF]]] : (i8, memref<8xi8>) -> i8
// CHECK-NOT: memref.store
func.func @store_global(%A: memref<16xf4E2M1FN>, %j: index, %v: f4E2M1FN) {
  memref.store %v, %A[%j] : memref<16xf4E2M1FN>
  return
}

// -----

// GPU shared memory is written by the whole block: atomics too.

// CHECK-LABEL: func.func @store_shared
// CHECK: %[[V:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16x64xi8, #gpu.address_space<workgroup>>
// CHECK: memref.atomic_rmw andi %{{.*}}, %[[V]]
// CHECK: memref.atomic_rmw ori %{{.*}}, %[[V]]
func.func @store_shared(%i: index, %j: index, %v: f4E2M1FN) {
  %c0 = arith.constant 0 : index
  %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
  %s = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16x128xf4E2M1FN, #gpu.address_space<workgroup>>
  memref.store %v, %s[%i, %j] : memref<16x128xf4E2M1FN, #gpu.address_space<workgroup>>
  return
}

// -----

// A thread's own buffer (registers, a stack array) merges the nibble into
// its byte without atomics; an odd extent rounds up to whole bytes.

// CHECK-LABEL: func.func @store_private
// CHECK: %[[R:.*]] = memref.alloca() : memref<3xi8>
// CHECK: %[[OLD:.*]] = memref.load %[[R]]
// CHECK: %[[CLR:.*]] = arith.andi %[[OLD]]
// CHECK: %[[NEW:.*]] = arith.ori %[[CLR]]
// CHECK: memref.store %[[NEW]], %[[R]]
// CHECK-NOT: memref.atomic_rmw
func.func @store_private(%j: index, %v: f4E2M1FN) -> f4E2M1FN {
  %r = memref.alloca() : memref<5xf4E2M1FN>
  memref.store %v, %r[%j] : memref<5xf4E2M1FN>
  %w = memref.load %r[%j] : memref<5xf4E2M1FN>
  return %w : f4E2M1FN
}

// -----

// Views and sizes: a region's innermost offset and extent halve, other
// strides halve, and the innermost size of a tensor doubles back.

// CHECK-LABEL: func.func @views
// CHECK-SAME: (%[[A:.*]]: memref<?x?xi8>, %[[I:.*]]: index, %[[K:.*]]: index)
// CHECK: %[[K2:.*]] = arith.shrui %[[K]], %{{.*}} : index
// CHECK: %[[S:.*]] = memref.subview %[[A]][%[[I]], %[[K2]]] [4, 16] [1, 1] : memref<?x?xi8> to memref<4x16xi8, strided<[?, 1], offset: ?>>
// CHECK: %[[D:.*]] = memref.dim %[[A]], %{{.*}} : memref<?x?xi8>
// CHECK: %[[N:.*]] = arith.muli %[[D]], %{{.*}} : index
// CHECK: return %[[S]], %[[N]]
func.func @views(%A: memref<?x?xf4E2M1FN>, %i: index, %k: index)
    -> (memref<4x32xf4E2M1FN, strided<[?, 1], offset: ?>>, index) {
  %s = memref.subview %A[%i, %k] [4, 32] [1, 1] : memref<?x?xf4E2M1FN> to memref<4x32xf4E2M1FN, strided<[?, 1], offset: ?>>
  %c1 = arith.constant 1 : index
  %n = memref.dim %A, %c1 : memref<?x?xf4E2M1FN>
  return %s, %n : memref<4x32xf4E2M1FN, strided<[?, 1], offset: ?>>, index
}

// -----

// f4 to f32: sign, exponent (bias 1) and mantissa bit placed in an f32
// (exponent 0: 0 or 0.5); to f16 through f32 (every f4 value is exact).

// CHECK-LABEL: func.func @extf
// CHECK-SAME: (%[[X:.*]]: i4)
// CHECK: %[[W:.*]] = arith.extui %[[X]] : i4 to i32
// CHECK: arith.select
// CHECK: %[[F:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK: %[[H:.*]] = arith.truncf %[[F]] : f32 to f16
// CHECK: return %[[F]], %[[H]]
func.func @extf(%x: f4E2M1FN) -> (f32, f16) {
  %f = arith.extf %x : f4E2M1FN to f32
  %h = arith.extf %x : f4E2M1FN to f16
  return %f, %h : f32, f16
}

// -----

// f32 to f4: the code of |x| counts the rounding boundaries it passes
// (strictly at ties that go down to the even code, from 0.25, 1.25, 2.5,
// 5; inclusively where they go up: 0.75, 1.75, 3.5); NaN (above infinity
// as bits) saturates like infinity and loses its sign. bf16 goes through
// f32.

// CHECK-LABEL: func.func @truncf
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK: %[[MAG:.*]] = arith.andi %[[BITS]], %{{.*}} : i32
// CHECK: %[[Q:.*]] = arith.constant 1048576000 : i32
// CHECK: arith.cmpi ugt, %[[MAG]], %[[Q]]
// CHECK: %[[TQ:.*]] = arith.constant 1061158912 : i32
// CHECK: arith.cmpi uge, %[[MAG]], %[[TQ]]
// CHECK: %[[FIVE:.*]] = arith.constant 1084227584 : i32
// CHECK: arith.cmpi ugt, %[[MAG]], %[[FIVE]]
// CHECK: %[[NAN:.*]] = arith.cmpi ugt, %[[MAG]], %{{.*}} : i32
// CHECK: arith.select %[[NAN]]
// CHECK: arith.trunci %{{.*}} : i32 to i4
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.trunci %{{.*}} : i32 to i4
func.func @truncf(%x: f32, %y: bf16) -> (f4E2M1FN, f4E2M1FN) {
  %a = arith.truncf %x : f32 to f4E2M1FN
  %b = arith.truncf %y : bf16 to f4E2M1FN
  return %a, %b : f4E2M1FN, f4E2M1FN
}

// -----

// Constants keep their bits.

// CHECK-LABEL: func.func @constant
// CHECK: %[[C:.*]] = arith.constant -3 : i4
// CHECK: return %[[C]]
func.func @constant() -> f4E2M1FN {
  %c = arith.constant -3.0 : f4E2M1FN
  return %c : f4E2M1FN
}

// -----

// Modules without f4 are left alone.

// CHECK-LABEL: func.func @untouched
// CHECK: memref.store %{{.*}} : memref<16xf16>
func.func @untouched(%A: memref<16xf16>, %v: f16, %j: index) {
  memref.store %v, %A[%j] : memref<16xf16>
  return
}
