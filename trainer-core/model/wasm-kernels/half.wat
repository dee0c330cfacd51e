;; Products with 16-bit (bfloat16 or IEEE half) matrices, widened to float32 in registers, on the
;; memory of tfjs's wasm backend (imported). Assembled by scripts/build-wasm-kernels.ts into
;; half-binary.ts.
;;
;; W is [N, K] row-major 16-bit (a Hugging Face weight, [out, in]); K is a multiple of 8 (the
;; caller checks). Four values t are widened at once, inline (V8 does not inline a call). IEEE
;; half ($f16 = 1): bits (t & 0x7fff) << 13 | (t & 0x8000) << 16, times 2^112, which rebiases
;; the exponent exactly, subnormals included (no half infinity or NaN: a matrix holding one
;; stays float32). bfloat16 ($f16 = 0) is the upper half of a float32: t << 16, one shift (its
;; own copy of each inner loop; the general formula, shift 16 and scale 1, took a third
;; longer). Sums are float32, in an order of their own: these products equal a float32 product
;; on the widened matrix within float32 rounding.
(module
  (import "env" "memory" (memory 1))

  (func $hsum (param $v v128) (result f32)
    (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $v)) (f32x4.extract_lane 1 (local.get $v)))
      (f32.add (f32x4.extract_lane 2 (local.get $v)) (f32x4.extract_lane 3 (local.get $v)))))

  ;; dot: Y[R, N] = X[R, K] W^T (a linear layer's forward pass, an LM head's logits).
  ;; Four rows by two columns at a time, then single rows by four columns; a column past N
  ;; reads the last column again and is not stored.
  (func (export "dot")
    (param $x i32) (param $w i32) (param $y i32) (param $R i32) (param $K i32) (param $N i32) (param $f16 i32)
    (local $r i32) (local $n i32) (local $k i32) (local $xRow i32) (local $wRow i32) (local $yRow i32)
    (local $x0 i32) (local $x1 i32) (local $x2 i32) (local $x3 i32)
    (local $w0 i32) (local $w1 i32) (local $w2 i32) (local $w3 i32)
    (local $xb i32) (local $wb i32) (local $lastW i32)
    (local $a v128) (local $b v128) (local $c v128) (local $d v128) (local $v v128)
    (local $s00 v128) (local $s01 v128) (local $s10 v128) (local $s11 v128)
    (local $s20 v128) (local $s21 v128) (local $s30 v128) (local $s31 v128)
    (local $t v128) (local $mask v128) (local $sign v128) (local $scale v128) (local $shift i32)
    (local.set $mask (v128.const i32x4 0x7fff 0x7fff 0x7fff 0x7fff))
    (local.set $sign (v128.const i32x4 0x8000 0x8000 0x8000 0x8000))
    (local.set $shift (select (i32.const 13) (i32.const 16) (local.get $f16)))
    (local.set $scale (select (v128.const f32x4 0x1p+112 0x1p+112 0x1p+112 0x1p+112) (v128.const f32x4 1 1 1 1) (local.get $f16)))
    (local.set $xRow (i32.shl (local.get $K) (i32.const 2)))
    (local.set $wRow (i32.shl (local.get $K) (i32.const 1)))
    (local.set $yRow (i32.shl (local.get $N) (i32.const 2)))
    (local.set $lastW (i32.add (local.get $w) (i32.mul (i32.sub (local.get $N) (i32.const 1)) (local.get $wRow))))
    (block $done4
      (loop $rows4
        (br_if $done4 (i32.gt_u (i32.add (local.get $r) (i32.const 4)) (local.get $R)))
        (local.set $x0 (i32.add (local.get $x) (i32.mul (local.get $r) (local.get $xRow))))
        (local.set $x1 (i32.add (local.get $x0) (local.get $xRow)))
        (local.set $x2 (i32.add (local.get $x1) (local.get $xRow)))
        (local.set $x3 (i32.add (local.get $x2) (local.get $xRow)))
        (local.set $n (i32.const 0))
        (block $colsDone
          (loop $cols
            (br_if $colsDone (i32.ge_u (local.get $n) (local.get $N)))
            (local.set $w0 (i32.add (local.get $w) (i32.mul (local.get $n) (local.get $wRow))))
            (local.set $w1 (select (i32.add (local.get $w0) (local.get $wRow)) (local.get $w0) (i32.lt_u (i32.add (local.get $n) (i32.const 1)) (local.get $N))))
            (local.set $s00 (v128.const i32x4 0 0 0 0)) (local.set $s01 (v128.const i32x4 0 0 0 0))
            (local.set $s10 (v128.const i32x4 0 0 0 0)) (local.set $s11 (v128.const i32x4 0 0 0 0))
            (local.set $s20 (v128.const i32x4 0 0 0 0)) (local.set $s21 (v128.const i32x4 0 0 0 0))
            (local.set $s30 (v128.const i32x4 0 0 0 0)) (local.set $s31 (v128.const i32x4 0 0 0 0))
            (local.set $xb (i32.const 0))
            (local.set $wb (i32.const 0))
            (if (local.get $f16)
              (then
                (loop $terms
                  (local.set $a (f32x4.mul (v128.or (i32x4.shl (v128.and (local.tee $t (v128.load16x4_u (i32.add (local.get $w0) (local.get $wb)))) (local.get $mask)) (local.get $shift)) (i32x4.shl (v128.and (local.get $t) (local.get $sign)) (i32.const 16))) (local.get $scale)))
                  (local.set $b (f32x4.mul (v128.or (i32x4.shl (v128.and (local.tee $t (v128.load16x4_u (i32.add (local.get $w1) (local.get $wb)))) (local.get $mask)) (local.get $shift)) (i32x4.shl (v128.and (local.get $t) (local.get $sign)) (i32.const 16))) (local.get $scale)))
                  (local.set $v (v128.load (i32.add (local.get $x0) (local.get $xb))))
                  (local.set $s00 (f32x4.add (local.get $s00) (f32x4.mul (local.get $v) (local.get $a))))
                  (local.set $s01 (f32x4.add (local.get $s01) (f32x4.mul (local.get $v) (local.get $b))))
                  (local.set $v (v128.load (i32.add (local.get $x1) (local.get $xb))))
                  (local.set $s10 (f32x4.add (local.get $s10) (f32x4.mul (local.get $v) (local.get $a))))
                  (local.set $s11 (f32x4.add (local.get $s11) (f32x4.mul (local.get $v) (local.get $b))))
                  (local.set $v (v128.load (i32.add (local.get $x2) (local.get $xb))))
                  (local.set $s20 (f32x4.add (local.get $s20) (f32x4.mul (local.get $v) (local.get $a))))
                  (local.set $s21 (f32x4.add (local.get $s21) (f32x4.mul (local.get $v) (local.get $b))))
                  (local.set $v (v128.load (i32.add (local.get $x3) (local.get $xb))))
                  (local.set $s30 (f32x4.add (local.get $s30) (f32x4.mul (local.get $v) (local.get $a))))
                  (local.set $s31 (f32x4.add (local.get $s31) (f32x4.mul (local.get $v) (local.get $b))))
                  (local.set $xb (i32.add (local.get $xb) (i32.const 16)))
                  (local.set $wb (i32.add (local.get $wb) (i32.const 8)))
                  (br_if $terms (i32.lt_u (local.get $wb) (local.get $wRow)))))
              ;; bfloat16: the upper half of a float32, one shift
              (else
                (loop $terms
                  (local.set $a (i32x4.shl (v128.load16x4_u (i32.add (local.get $w0) (local.get $wb))) (i32.const 16)))
                  (local.set $b (i32x4.shl (v128.load16x4_u (i32.add (local.get $w1) (local.get $wb))) (i32.const 16)))
                  (local.set $v (v128.load (i32.add (local.get $x0) (local.get $xb))))
                  (local.set $s00 (f32x4.add (local.get $s00) (f32x4.mul (local.get $v) (local.get $a))))
                  (local.set $s01 (f32x4.add (local.get $s01) (f32x4.mul (local.get $v) (local.get $b))))
                  (local.set $v (v128.load (i32.add (local.get $x1) (local.get $xb))))
                  (local.set $s10 (f32x4.add (local.get $s10) (f32x4.mul (local.get $v) (local.get $a))))
                  (local.set $s11 (f32x4.add (local.get $s11) (f32x4.mul (local.get $v) (local.get $b))))
                  (local.set $v (v128.load (i32.add (local.get $x2) (local.get $xb))))
                  (local.set $s20 (f32x4.add (local.get $s20) (f32x4.mul (local.get $v) (local.get $a))))
                  (local.set $s21 (f32x4.add (local.get $s21) (f32x4.mul (local.get $v) (local.get $b))))
                  (local.set $v (v128.load (i32.add (local.get $x3) (local.get $xb))))
                  (local.set $s30 (f32x4.add (local.get $s30) (f32x4.mul (local.get $v) (local.get $a))))
                  (local.set $s31 (f32x4.add (local.get $s31) (f32x4.mul (local.get $v) (local.get $b))))
                  (local.set $xb (i32.add (local.get $xb) (i32.const 16)))
                  (local.set $wb (i32.add (local.get $wb) (i32.const 8)))
                  (br_if $terms (i32.lt_u (local.get $wb) (local.get $wRow))))))
            (local.set $k (i32.add (local.get $y) (i32.add (i32.mul (local.get $r) (local.get $yRow)) (i32.shl (local.get $n) (i32.const 2)))))
            (f32.store (local.get $k) (call $hsum (local.get $s00)))
            (f32.store (i32.add (local.get $k) (local.get $yRow)) (call $hsum (local.get $s10)))
            (f32.store (i32.add (local.get $k) (i32.shl (local.get $yRow) (i32.const 1))) (call $hsum (local.get $s20)))
            (f32.store (i32.add (local.get $k) (i32.mul (local.get $yRow) (i32.const 3))) (call $hsum (local.get $s30)))
            (if (i32.lt_u (i32.add (local.get $n) (i32.const 1)) (local.get $N))
              (then
                (f32.store offset=4 (local.get $k) (call $hsum (local.get $s01)))
                (f32.store offset=4 (i32.add (local.get $k) (local.get $yRow)) (call $hsum (local.get $s11)))
                (f32.store offset=4 (i32.add (local.get $k) (i32.shl (local.get $yRow) (i32.const 1))) (call $hsum (local.get $s21)))
                (f32.store offset=4 (i32.add (local.get $k) (i32.mul (local.get $yRow) (i32.const 3))) (call $hsum (local.get $s31)))))
            (local.set $n (i32.add (local.get $n) (i32.const 2)))
            (br $cols)))
        (local.set $r (i32.add (local.get $r) (i32.const 4)))
        (br $rows4)))
    ;; the last rows (and a decoding step's few rows), one at a time, four columns at a time
    (block $done1
      (loop $rows1
        (br_if $done1 (i32.ge_u (local.get $r) (local.get $R)))
        (local.set $x0 (i32.add (local.get $x) (i32.mul (local.get $r) (local.get $xRow))))
        (local.set $n (i32.const 0))
        (block $colsDone1
          (loop $cols1
            (br_if $colsDone1 (i32.ge_u (local.get $n) (local.get $N)))
            (local.set $w0 (i32.add (local.get $w) (i32.mul (local.get $n) (local.get $wRow))))
            (local.set $w1 (select (i32.add (local.get $w0) (local.get $wRow)) (local.get $lastW) (i32.lt_u (i32.add (local.get $n) (i32.const 1)) (local.get $N))))
            (local.set $w2 (select (i32.add (local.get $w1) (local.get $wRow)) (local.get $lastW) (i32.lt_u (i32.add (local.get $n) (i32.const 2)) (local.get $N))))
            (local.set $w3 (select (i32.add (local.get $w2) (local.get $wRow)) (local.get $lastW) (i32.lt_u (i32.add (local.get $n) (i32.const 3)) (local.get $N))))
            (local.set $s00 (v128.const i32x4 0 0 0 0)) (local.set $s01 (v128.const i32x4 0 0 0 0))
            (local.set $s10 (v128.const i32x4 0 0 0 0)) (local.set $s11 (v128.const i32x4 0 0 0 0))
            (local.set $xb (i32.const 0))
            (local.set $wb (i32.const 0))
            (if (local.get $f16)
              (then
                (loop $terms1
                  (local.set $v (v128.load (i32.add (local.get $x0) (local.get $xb))))
                  (local.set $a (f32x4.mul (v128.or (i32x4.shl (v128.and (local.tee $t (v128.load16x4_u (i32.add (local.get $w0) (local.get $wb)))) (local.get $mask)) (local.get $shift)) (i32x4.shl (v128.and (local.get $t) (local.get $sign)) (i32.const 16))) (local.get $scale)))
                  (local.set $b (f32x4.mul (v128.or (i32x4.shl (v128.and (local.tee $t (v128.load16x4_u (i32.add (local.get $w1) (local.get $wb)))) (local.get $mask)) (local.get $shift)) (i32x4.shl (v128.and (local.get $t) (local.get $sign)) (i32.const 16))) (local.get $scale)))
                  (local.set $c (f32x4.mul (v128.or (i32x4.shl (v128.and (local.tee $t (v128.load16x4_u (i32.add (local.get $w2) (local.get $wb)))) (local.get $mask)) (local.get $shift)) (i32x4.shl (v128.and (local.get $t) (local.get $sign)) (i32.const 16))) (local.get $scale)))
                  (local.set $d (f32x4.mul (v128.or (i32x4.shl (v128.and (local.tee $t (v128.load16x4_u (i32.add (local.get $w3) (local.get $wb)))) (local.get $mask)) (local.get $shift)) (i32x4.shl (v128.and (local.get $t) (local.get $sign)) (i32.const 16))) (local.get $scale)))
                  (local.set $s00 (f32x4.add (local.get $s00) (f32x4.mul (local.get $v) (local.get $a))))
                  (local.set $s01 (f32x4.add (local.get $s01) (f32x4.mul (local.get $v) (local.get $b))))
                  (local.set $s10 (f32x4.add (local.get $s10) (f32x4.mul (local.get $v) (local.get $c))))
                  (local.set $s11 (f32x4.add (local.get $s11) (f32x4.mul (local.get $v) (local.get $d))))
                  (local.set $xb (i32.add (local.get $xb) (i32.const 16)))
                  (local.set $wb (i32.add (local.get $wb) (i32.const 8)))
                  (br_if $terms1 (i32.lt_u (local.get $wb) (local.get $wRow)))))
              ;; bfloat16: the upper half of a float32, one shift
              (else
                (loop $terms1
                  (local.set $v (v128.load (i32.add (local.get $x0) (local.get $xb))))
                  (local.set $a (i32x4.shl (v128.load16x4_u (i32.add (local.get $w0) (local.get $wb))) (i32.const 16)))
                  (local.set $b (i32x4.shl (v128.load16x4_u (i32.add (local.get $w1) (local.get $wb))) (i32.const 16)))
                  (local.set $c (i32x4.shl (v128.load16x4_u (i32.add (local.get $w2) (local.get $wb))) (i32.const 16)))
                  (local.set $d (i32x4.shl (v128.load16x4_u (i32.add (local.get $w3) (local.get $wb))) (i32.const 16)))
                  (local.set $s00 (f32x4.add (local.get $s00) (f32x4.mul (local.get $v) (local.get $a))))
                  (local.set $s01 (f32x4.add (local.get $s01) (f32x4.mul (local.get $v) (local.get $b))))
                  (local.set $s10 (f32x4.add (local.get $s10) (f32x4.mul (local.get $v) (local.get $c))))
                  (local.set $s11 (f32x4.add (local.get $s11) (f32x4.mul (local.get $v) (local.get $d))))
                  (local.set $xb (i32.add (local.get $xb) (i32.const 16)))
                  (local.set $wb (i32.add (local.get $wb) (i32.const 8)))
                  (br_if $terms1 (i32.lt_u (local.get $wb) (local.get $wRow))))))
            (local.set $k (i32.add (local.get $y) (i32.add (i32.mul (local.get $r) (local.get $yRow)) (i32.shl (local.get $n) (i32.const 2)))))
            (f32.store (local.get $k) (call $hsum (local.get $s00)))
            (if (i32.lt_u (i32.add (local.get $n) (i32.const 1)) (local.get $N)) (then (f32.store offset=4 (local.get $k) (call $hsum (local.get $s01)))))
            (if (i32.lt_u (i32.add (local.get $n) (i32.const 2)) (local.get $N)) (then (f32.store offset=8 (local.get $k) (call $hsum (local.get $s10)))))
            (if (i32.lt_u (i32.add (local.get $n) (i32.const 3)) (local.get $N)) (then (f32.store offset=12 (local.get $k) (call $hsum (local.get $s11)))))
            (local.set $n (i32.add (local.get $n) (i32.const 4)))
            (br $cols1)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $rows1))))

  ;; axpy: Z[R, K] = G[R, N] W (the gradient of X in Y = X W^T; an LM head's hidden gradient).
  ;; Four rows by eight columns at a time, over blocks of 64 rows of W (so the block's cache lines
  ;; serve all its columns); the partial sums wait in Z between blocks. A row past R reads (and
  ;; computes) the last row again and is not stored.
  (func (export "axpy")
    (param $g i32) (param $w i32) (param $z i32) (param $R i32) (param $N i32) (param $K i32) (param $f16 i32)
    (local $r i32) (local $n i32) (local $kc i32) (local $rows i32) (local $nb i32) (local $nEnd i32)
    (local $gRow i32) (local $wRow i32) (local $zRow i32) (local $lastG i32) (local $lastZ i32)
    (local $g0 i32) (local $g1 i32) (local $g2 i32) (local $g3 i32)
    (local $z0 i32) (local $z1 i32) (local $z2 i32) (local $z3 i32) (local $pw i32) (local $pg i32) (local $zc i32)
    (local $a v128) (local $b v128) (local $v v128)
    (local $s0a v128) (local $s0b v128) (local $s1a v128) (local $s1b v128)
    (local $s2a v128) (local $s2b v128) (local $s3a v128) (local $s3b v128)
    (local $t v128) (local $mask v128) (local $sign v128) (local $scale v128) (local $shift i32)
    (local.set $mask (v128.const i32x4 0x7fff 0x7fff 0x7fff 0x7fff))
    (local.set $sign (v128.const i32x4 0x8000 0x8000 0x8000 0x8000))
    (local.set $shift (select (i32.const 13) (i32.const 16) (local.get $f16)))
    (local.set $scale (select (v128.const f32x4 0x1p+112 0x1p+112 0x1p+112 0x1p+112) (v128.const f32x4 1 1 1 1) (local.get $f16)))
    (local.set $gRow (i32.shl (local.get $N) (i32.const 2)))
    (local.set $wRow (i32.shl (local.get $K) (i32.const 1)))
    (local.set $zRow (i32.shl (local.get $K) (i32.const 2)))
    (local.set $lastG (i32.add (local.get $g) (i32.mul (i32.sub (local.get $R) (i32.const 1)) (local.get $gRow))))
    (local.set $lastZ (i32.add (local.get $z) (i32.mul (i32.sub (local.get $R) (i32.const 1)) (local.get $zRow))))
    (block $rowsDone
      (loop $rows
        (br_if $rowsDone (i32.ge_u (local.get $r) (local.get $R)))
        (local.set $rows (i32.sub (local.get $R) (local.get $r)))
        (local.set $g0 (i32.add (local.get $g) (i32.mul (local.get $r) (local.get $gRow))))
        (local.set $g1 (select (i32.add (local.get $g0) (local.get $gRow)) (local.get $lastG) (i32.gt_u (local.get $rows) (i32.const 1))))
        (local.set $g2 (select (i32.add (local.get $g1) (local.get $gRow)) (local.get $lastG) (i32.gt_u (local.get $rows) (i32.const 2))))
        (local.set $g3 (select (i32.add (local.get $g2) (local.get $gRow)) (local.get $lastG) (i32.gt_u (local.get $rows) (i32.const 3))))
        (local.set $z0 (i32.add (local.get $z) (i32.mul (local.get $r) (local.get $zRow))))
        (local.set $z1 (select (i32.add (local.get $z0) (local.get $zRow)) (local.get $lastZ) (i32.gt_u (local.get $rows) (i32.const 1))))
        (local.set $z2 (select (i32.add (local.get $z1) (local.get $zRow)) (local.get $lastZ) (i32.gt_u (local.get $rows) (i32.const 2))))
        (local.set $z3 (select (i32.add (local.get $z2) (local.get $zRow)) (local.get $lastZ) (i32.gt_u (local.get $rows) (i32.const 3))))
        (local.set $nb (i32.const 0))
        (block $blocksDone
          (loop $blocks
            (br_if $blocksDone (i32.ge_u (local.get $nb) (local.get $N)))
            (local.set $nEnd (select (local.get $N) (i32.add (local.get $nb) (i32.const 64)) (i32.gt_u (i32.add (local.get $nb) (i32.const 64)) (local.get $N))))
            (local.set $kc (i32.const 0))
            (block $colsDone
              (loop $cols
                (br_if $colsDone (i32.ge_u (local.get $kc) (local.get $K)))
                (local.set $zc (i32.shl (local.get $kc) (i32.const 2)))
                (if (local.get $nb)
                  (then
                    (local.set $s0a (v128.load (i32.add (local.get $z0) (local.get $zc)))) (local.set $s0b (v128.load offset=16 (i32.add (local.get $z0) (local.get $zc))))
                    (local.set $s1a (v128.load (i32.add (local.get $z1) (local.get $zc)))) (local.set $s1b (v128.load offset=16 (i32.add (local.get $z1) (local.get $zc))))
                    (local.set $s2a (v128.load (i32.add (local.get $z2) (local.get $zc)))) (local.set $s2b (v128.load offset=16 (i32.add (local.get $z2) (local.get $zc))))
                    (local.set $s3a (v128.load (i32.add (local.get $z3) (local.get $zc)))) (local.set $s3b (v128.load offset=16 (i32.add (local.get $z3) (local.get $zc)))))
                  (else
                    (local.set $s0a (v128.const i32x4 0 0 0 0)) (local.set $s0b (v128.const i32x4 0 0 0 0))
                    (local.set $s1a (v128.const i32x4 0 0 0 0)) (local.set $s1b (v128.const i32x4 0 0 0 0))
                    (local.set $s2a (v128.const i32x4 0 0 0 0)) (local.set $s2b (v128.const i32x4 0 0 0 0))
                    (local.set $s3a (v128.const i32x4 0 0 0 0)) (local.set $s3b (v128.const i32x4 0 0 0 0))))
                (local.set $pw (i32.add (local.get $w) (i32.add (i32.mul (local.get $nb) (local.get $wRow)) (i32.shl (local.get $kc) (i32.const 1)))))
                (local.set $pg (i32.shl (local.get $nb) (i32.const 2)))
                (local.set $n (i32.sub (local.get $nEnd) (local.get $nb)))
                (if (local.get $f16)
                  (then
                    (loop $terms
                      (local.set $a (f32x4.mul (v128.or (i32x4.shl (v128.and (local.tee $t (v128.load16x4_u (local.get $pw))) (local.get $mask)) (local.get $shift)) (i32x4.shl (v128.and (local.get $t) (local.get $sign)) (i32.const 16))) (local.get $scale)))
                      (local.set $b (f32x4.mul (v128.or (i32x4.shl (v128.and (local.tee $t (v128.load16x4_u (i32.add (local.get $pw) (i32.const 8)))) (local.get $mask)) (local.get $shift)) (i32x4.shl (v128.and (local.get $t) (local.get $sign)) (i32.const 16))) (local.get $scale)))
                      (local.set $v (v128.load32_splat (i32.add (local.get $g0) (local.get $pg))))
                      (local.set $s0a (f32x4.add (local.get $s0a) (f32x4.mul (local.get $v) (local.get $a))))
                      (local.set $s0b (f32x4.add (local.get $s0b) (f32x4.mul (local.get $v) (local.get $b))))
                      (local.set $v (v128.load32_splat (i32.add (local.get $g1) (local.get $pg))))
                      (local.set $s1a (f32x4.add (local.get $s1a) (f32x4.mul (local.get $v) (local.get $a))))
                      (local.set $s1b (f32x4.add (local.get $s1b) (f32x4.mul (local.get $v) (local.get $b))))
                      (local.set $v (v128.load32_splat (i32.add (local.get $g2) (local.get $pg))))
                      (local.set $s2a (f32x4.add (local.get $s2a) (f32x4.mul (local.get $v) (local.get $a))))
                      (local.set $s2b (f32x4.add (local.get $s2b) (f32x4.mul (local.get $v) (local.get $b))))
                      (local.set $v (v128.load32_splat (i32.add (local.get $g3) (local.get $pg))))
                      (local.set $s3a (f32x4.add (local.get $s3a) (f32x4.mul (local.get $v) (local.get $a))))
                      (local.set $s3b (f32x4.add (local.get $s3b) (f32x4.mul (local.get $v) (local.get $b))))
                      (local.set $pw (i32.add (local.get $pw) (local.get $wRow)))
                      (local.set $pg (i32.add (local.get $pg) (i32.const 4)))
                      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
                      (br_if $terms (local.get $n))))
                  ;; bfloat16: the upper half of a float32, one shift
                  (else
                    (loop $terms
                      (local.set $a (i32x4.shl (v128.load16x4_u (local.get $pw)) (i32.const 16)))
                      (local.set $b (i32x4.shl (v128.load16x4_u (i32.add (local.get $pw) (i32.const 8))) (i32.const 16)))
                      (local.set $v (v128.load32_splat (i32.add (local.get $g0) (local.get $pg))))
                      (local.set $s0a (f32x4.add (local.get $s0a) (f32x4.mul (local.get $v) (local.get $a))))
                      (local.set $s0b (f32x4.add (local.get $s0b) (f32x4.mul (local.get $v) (local.get $b))))
                      (local.set $v (v128.load32_splat (i32.add (local.get $g1) (local.get $pg))))
                      (local.set $s1a (f32x4.add (local.get $s1a) (f32x4.mul (local.get $v) (local.get $a))))
                      (local.set $s1b (f32x4.add (local.get $s1b) (f32x4.mul (local.get $v) (local.get $b))))
                      (local.set $v (v128.load32_splat (i32.add (local.get $g2) (local.get $pg))))
                      (local.set $s2a (f32x4.add (local.get $s2a) (f32x4.mul (local.get $v) (local.get $a))))
                      (local.set $s2b (f32x4.add (local.get $s2b) (f32x4.mul (local.get $v) (local.get $b))))
                      (local.set $v (v128.load32_splat (i32.add (local.get $g3) (local.get $pg))))
                      (local.set $s3a (f32x4.add (local.get $s3a) (f32x4.mul (local.get $v) (local.get $a))))
                      (local.set $s3b (f32x4.add (local.get $s3b) (f32x4.mul (local.get $v) (local.get $b))))
                      (local.set $pw (i32.add (local.get $pw) (local.get $wRow)))
                      (local.set $pg (i32.add (local.get $pg) (i32.const 4)))
                      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
                      (br_if $terms (local.get $n)))))
                ;; a row past R repeated the last row's work exactly: storing it there again changes nothing
                (v128.store (i32.add (local.get $z3) (local.get $zc)) (local.get $s3a)) (v128.store offset=16 (i32.add (local.get $z3) (local.get $zc)) (local.get $s3b))
                (v128.store (i32.add (local.get $z2) (local.get $zc)) (local.get $s2a)) (v128.store offset=16 (i32.add (local.get $z2) (local.get $zc)) (local.get $s2b))
                (v128.store (i32.add (local.get $z1) (local.get $zc)) (local.get $s1a)) (v128.store offset=16 (i32.add (local.get $z1) (local.get $zc)) (local.get $s1b))
                (v128.store (i32.add (local.get $z0) (local.get $zc)) (local.get $s0a)) (v128.store offset=16 (i32.add (local.get $z0) (local.get $zc)) (local.get $s0b))
                (local.set $kc (i32.add (local.get $kc) (i32.const 8)))
                (br $cols)))
            (local.set $nb (local.get $nEnd))
            (br $blocks)))
        (local.set $r (i32.add (local.get $r) (i32.const 4)))
        (br $rows))))

  ;; gather: Z[i, :] = W[ids[i], :] widened (an embedding lookup); an id outside [0, N) gives zeros.
  (func (export "gather")
    (param $w i32) (param $ids i32) (param $z i32) (param $count i32) (param $K i32) (param $N i32) (param $f16 i32)
    (local $i i32) (local $id i32) (local $src i32) (local $kb i32) (local $wRow i32)
    (local $t v128) (local $mask v128) (local $sign v128) (local $scale v128) (local $shift i32)
    (local.set $mask (v128.const i32x4 0x7fff 0x7fff 0x7fff 0x7fff))
    (local.set $sign (v128.const i32x4 0x8000 0x8000 0x8000 0x8000))
    (local.set $shift (select (i32.const 13) (i32.const 16) (local.get $f16)))
    (local.set $scale (select (v128.const f32x4 0x1p+112 0x1p+112 0x1p+112 0x1p+112) (v128.const f32x4 1 1 1 1) (local.get $f16)))
    (local.set $wRow (i32.shl (local.get $K) (i32.const 1)))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (local.get $count)))
        (local.set $id (i32.load (i32.add (local.get $ids) (i32.shl (local.get $i) (i32.const 2)))))
        (if (i32.lt_u (local.get $id) (local.get $N))
          (then
            (local.set $src (i32.add (local.get $w) (i32.mul (local.get $id) (local.get $wRow))))
            (local.set $kb (i32.const 0))
            (loop $copy
              (v128.store (local.get $z) (f32x4.mul (v128.or (i32x4.shl (v128.and (local.tee $t (v128.load16x4_u (i32.add (local.get $src) (local.get $kb)))) (local.get $mask)) (local.get $shift)) (i32x4.shl (v128.and (local.get $t) (local.get $sign)) (i32.const 16))) (local.get $scale)))
              (local.set $z (i32.add (local.get $z) (i32.const 16)))
              (local.set $kb (i32.add (local.get $kb) (i32.const 8)))
              (br_if $copy (i32.lt_u (local.get $kb) (local.get $wRow)))))
          (else
            (memory.fill (local.get $z) (i32.const 0) (i32.shl (local.get $K) (i32.const 2)))
            (local.set $z (i32.add (local.get $z) (i32.shl (local.get $K) (i32.const 2))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))))
