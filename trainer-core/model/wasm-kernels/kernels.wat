;; TurnLab's own kernels for tfjs's wasm backend, on that backend's memory (imported).
;; Assembled by scripts/build-wasm-kernels.ts into kernels-binary.ts.
;;
;; matmul: batched float32 matrix product C[b] = A[b] x B[b]. Every output element is summed exactly as tfjs-wasm's generic BatchMatMul sums it: the shared
;; dimension in blocks of 48, each block summed from zero in order and then added to the output,
;; with a multiply and an add per term (wasm has no fused multiply-add). So the result equals that
;; kernel's bit for bit, only vectorised over four output columns at a time.
(module
  (import "env" "memory" (memory 1))
  ;; a, b, c: byte addresses. A's element (i, k) sits at a + 4 * (i * sai + k * sak), so one
  ;; function serves A and A transposed. B is [K, N] and C [M, N], both row-major.
  ;; sab, sbb: elements between consecutive batch entries of A and B.
  (func (export "matmul")
    (param $a i32) (param $b i32) (param $c i32)
    (param $batch i32) (param $M i32) (param $K i32) (param $N i32)
    (param $sai i32) (param $sak i32) (param $sab i32) (param $sbb i32)
    (local $bt i32) (local $i i32) (local $j i32) (local $k i32) (local $kk i32)
    (local $aB i32) (local $bB i32) (local $aRow i32) (local $out i32)
    (local $pa i32) (local $pb i32) (local $rowBytes i32) (local $stepA i32)
    (local $s v128)
    (local $acc0 v128) (local $acc1 v128) (local $acc2 v128) (local $acc3 v128)
    (local $p0 v128) (local $p1 v128) (local $p2 v128) (local $p3 v128)
    (local $sum f32) (local $part f32)
    (local.set $rowBytes (i32.shl (local.get $N) (i32.const 2)))
    (local.set $stepA (i32.shl (local.get $sak) (i32.const 2)))
    (block $doneBatch
      (loop $batchLoop
        (br_if $doneBatch (i32.ge_u (local.get $bt) (local.get $batch)))
        (local.set $aB (i32.add (local.get $a) (i32.shl (i32.mul (local.get $bt) (local.get $sab)) (i32.const 2))))
        (local.set $bB (i32.add (local.get $b) (i32.shl (i32.mul (local.get $bt) (local.get $sbb)) (i32.const 2))))
        (local.set $i (i32.const 0))
        (block $doneRows
          (loop $rowLoop
            (br_if $doneRows (i32.ge_u (local.get $i) (local.get $M)))
            (local.set $aRow (i32.add (local.get $aB) (i32.shl (i32.mul (local.get $i) (local.get $sai)) (i32.const 2))))
            (local.set $j (i32.const 0))
            ;; sixteen columns at a time
            (block $done16
              (loop $cols16
                (br_if $done16 (i32.gt_u (i32.add (local.get $j) (i32.const 16)) (local.get $N)))
                (local.set $acc0 (v128.const i32x4 0 0 0 0))
                (local.set $acc1 (v128.const i32x4 0 0 0 0))
                (local.set $acc2 (v128.const i32x4 0 0 0 0))
                (local.set $acc3 (v128.const i32x4 0 0 0 0))
                (local.set $pa (local.get $aRow))
                (local.set $pb (i32.add (local.get $bB) (i32.shl (local.get $j) (i32.const 2))))
                (local.set $k (local.get $K))
                (block $blocks16done
                  (loop $blocks16
                    (br_if $blocks16done (i32.eqz (local.get $k)))
                    (local.set $kk (select (i32.const 48) (local.get $k) (i32.gt_u (local.get $k) (i32.const 48))))
                    (local.set $k (i32.sub (local.get $k) (local.get $kk)))
                    (local.set $p0 (v128.const i32x4 0 0 0 0))
                    (local.set $p1 (v128.const i32x4 0 0 0 0))
                    (local.set $p2 (v128.const i32x4 0 0 0 0))
                    (local.set $p3 (v128.const i32x4 0 0 0 0))
                    (loop $terms16
                      (local.set $s (f32x4.splat (f32.load (local.get $pa))))
                      (local.set $p0 (f32x4.add (local.get $p0) (f32x4.mul (local.get $s) (v128.load (local.get $pb)))))
                      (local.set $p1 (f32x4.add (local.get $p1) (f32x4.mul (local.get $s) (v128.load offset=16 (local.get $pb)))))
                      (local.set $p2 (f32x4.add (local.get $p2) (f32x4.mul (local.get $s) (v128.load offset=32 (local.get $pb)))))
                      (local.set $p3 (f32x4.add (local.get $p3) (f32x4.mul (local.get $s) (v128.load offset=48 (local.get $pb)))))
                      (local.set $pa (i32.add (local.get $pa) (local.get $stepA)))
                      (local.set $pb (i32.add (local.get $pb) (local.get $rowBytes)))
                      (local.set $kk (i32.sub (local.get $kk) (i32.const 1)))
                      (br_if $terms16 (local.get $kk)))
                    (local.set $acc0 (f32x4.add (local.get $acc0) (local.get $p0)))
                    (local.set $acc1 (f32x4.add (local.get $acc1) (local.get $p1)))
                    (local.set $acc2 (f32x4.add (local.get $acc2) (local.get $p2)))
                    (local.set $acc3 (f32x4.add (local.get $acc3) (local.get $p3)))
                    (br $blocks16)))
                (local.set $out (i32.add (local.get $c) (i32.shl (local.get $j) (i32.const 2))))
                (v128.store (local.get $out) (local.get $acc0))
                (v128.store offset=16 (local.get $out) (local.get $acc1))
                (v128.store offset=32 (local.get $out) (local.get $acc2))
                (v128.store offset=48 (local.get $out) (local.get $acc3))
                (local.set $j (i32.add (local.get $j) (i32.const 16)))
                (br $cols16)))
            ;; then four columns at a time
            (block $done4
              (loop $cols4
                (br_if $done4 (i32.gt_u (i32.add (local.get $j) (i32.const 4)) (local.get $N)))
                (local.set $acc0 (v128.const i32x4 0 0 0 0))
                (local.set $pa (local.get $aRow))
                (local.set $pb (i32.add (local.get $bB) (i32.shl (local.get $j) (i32.const 2))))
                (local.set $k (local.get $K))
                (block $blocks4done
                  (loop $blocks4
                    (br_if $blocks4done (i32.eqz (local.get $k)))
                    (local.set $kk (select (i32.const 48) (local.get $k) (i32.gt_u (local.get $k) (i32.const 48))))
                    (local.set $k (i32.sub (local.get $k) (local.get $kk)))
                    (local.set $p0 (v128.const i32x4 0 0 0 0))
                    (loop $terms4
                      (local.set $p0 (f32x4.add (local.get $p0) (f32x4.mul (f32x4.splat (f32.load (local.get $pa))) (v128.load (local.get $pb)))))
                      (local.set $pa (i32.add (local.get $pa) (local.get $stepA)))
                      (local.set $pb (i32.add (local.get $pb) (local.get $rowBytes)))
                      (local.set $kk (i32.sub (local.get $kk) (i32.const 1)))
                      (br_if $terms4 (local.get $kk)))
                    (local.set $acc0 (f32x4.add (local.get $acc0) (local.get $p0)))
                    (br $blocks4)))
                (v128.store (i32.add (local.get $c) (i32.shl (local.get $j) (i32.const 2))) (local.get $acc0))
                (local.set $j (i32.add (local.get $j) (i32.const 4)))
                (br $cols4)))
            ;; then the last columns one at a time
            (block $done1
              (loop $cols1
                (br_if $done1 (i32.ge_u (local.get $j) (local.get $N)))
                (local.set $sum (f32.const 0))
                (local.set $pa (local.get $aRow))
                (local.set $pb (i32.add (local.get $bB) (i32.shl (local.get $j) (i32.const 2))))
                (local.set $k (local.get $K))
                (block $blocks1done
                  (loop $blocks1
                    (br_if $blocks1done (i32.eqz (local.get $k)))
                    (local.set $kk (select (i32.const 48) (local.get $k) (i32.gt_u (local.get $k) (i32.const 48))))
                    (local.set $k (i32.sub (local.get $k) (local.get $kk)))
                    (local.set $part (f32.const 0))
                    (loop $terms1
                      (local.set $part (f32.add (local.get $part) (f32.mul (f32.load (local.get $pa)) (f32.load (local.get $pb)))))
                      (local.set $pa (i32.add (local.get $pa) (local.get $stepA)))
                      (local.set $pb (i32.add (local.get $pb) (local.get $rowBytes)))
                      (local.set $kk (i32.sub (local.get $kk) (i32.const 1)))
                      (br_if $terms1 (local.get $kk)))
                    (local.set $sum (f32.add (local.get $sum) (local.get $part)))
                    (br $blocks1)))
                (f32.store (i32.add (local.get $c) (i32.shl (local.get $j) (i32.const 2))) (local.get $sum))
                (local.set $j (i32.add (local.get $j) (i32.const 1)))
                (br $cols1)))
            (local.set $c (i32.add (local.get $c) (local.get $rowBytes)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $rowLoop)))
        (local.set $bt (i32.add (local.get $bt) (i32.const 1)))
        (br $batchLoop))))
  ;; slice: copies a box of up to four dimensions out of a row-major tensor. x points at the box's
  ;; first element; s0..s2 count the outer positions, xs0..xs2 are x's strides in bytes, and each
  ;; innermost run of `run` bytes is contiguous in both x and out.
  (func (export "slice")
    (param $x i32) (param $out i32)
    (param $s0 i32) (param $s1 i32) (param $s2 i32)
    (param $xs0 i32) (param $xs1 i32) (param $xs2 i32) (param $run i32)
    (local $i i32) (local $j i32) (local $k i32) (local $p0 i32) (local $p1 i32) (local $p2 i32)
    (block $done0
      (loop $loop0
        (br_if $done0 (i32.ge_u (local.get $i) (local.get $s0)))
        (local.set $p0 (i32.add (local.get $x) (i32.mul (local.get $i) (local.get $xs0))))
        (local.set $j (i32.const 0))
        (block $done1
          (loop $loop1
            (br_if $done1 (i32.ge_u (local.get $j) (local.get $s1)))
            (local.set $p1 (i32.add (local.get $p0) (i32.mul (local.get $j) (local.get $xs1))))
            (local.set $k (i32.const 0))
            (block $done2
              (loop $loop2
                (br_if $done2 (i32.ge_u (local.get $k) (local.get $s2)))
                (local.set $p2 (i32.add (local.get $p1) (i32.mul (local.get $k) (local.get $xs2))))
                (memory.copy (local.get $out) (local.get $p2) (local.get $run))
                (local.set $out (i32.add (local.get $out) (local.get $run)))
                (local.set $k (i32.add (local.get $k) (i32.const 1)))
                (br $loop2)))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $loop1)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $loop0)))))
