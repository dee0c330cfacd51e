;; The LM head's softmax over rows of raw logits z [R, V] (float32, the product of hidden states
;; and the head), on the memory of tfjs's wasm backend (imported): the scored token's logprob
;; and the entropy, their gradients with respect to z, and sampling. One pass per quantity over
;; a row instead of a dozen tfjs ops over the whole chunk. Assembled by
;; scripts/build-wasm-kernels.ts into head-binary.ts.
;;
;; Each row is read at temperature T as z / T = z * invT. Sums over the vocabulary are float32
;; within a block of 256 logits (64 terms a lane) and float64 across lanes and blocks, so
;; 151,936 terms lose nothing a float32 head would notice; exp is Cephes' expf polynomial in
;; float32 (within 2 ulp), exactly 0 below -87.3 (no float32 exp there is a normal number).
(module
  (import "env" "memory" (memory 1))

  ;; exp of four values, each <= 0 (a logit minus its row's maximum). n = round(x / ln 2) by
  ;; adding 1.5 * 2^23, whose float32 then holds n in its low mantissa bits: 2^n is those bits
  ;; plus the exponent bias, shifted into the exponent field.
  (func $exp4 (param $x v128) (result v128)
    (local $t v128) (local $n v128) (local $r v128) (local $p v128) (local $live v128)
    (local.set $live (f32x4.ge (local.get $x) (v128.const f32x4 -87.3 -87.3 -87.3 -87.3)))
    (local.set $x (f32x4.max (local.get $x) (v128.const f32x4 -87.3 -87.3 -87.3 -87.3)))
    (local.set $t (f32x4.add (f32x4.mul (local.get $x) (v128.const f32x4 1.44269504088896341 1.44269504088896341 1.44269504088896341 1.44269504088896341)) (v128.const f32x4 12582912 12582912 12582912 12582912)))
    (local.set $n (f32x4.sub (local.get $t) (v128.const f32x4 12582912 12582912 12582912 12582912)))
    ;; x - n ln 2, ln 2 in two parts so that n * (first part) is exact.
    (local.set $r (f32x4.sub (local.get $x) (f32x4.mul (local.get $n) (v128.const f32x4 0.693359375 0.693359375 0.693359375 0.693359375))))
    (local.set $r (f32x4.sub (local.get $r) (f32x4.mul (local.get $n) (v128.const f32x4 -2.12194440e-4 -2.12194440e-4 -2.12194440e-4 -2.12194440e-4))))
    (local.set $p (v128.const f32x4 1.9875691500e-4 1.9875691500e-4 1.9875691500e-4 1.9875691500e-4))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (v128.const f32x4 1.3981999507e-3 1.3981999507e-3 1.3981999507e-3 1.3981999507e-3)))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (v128.const f32x4 8.3334519073e-3 8.3334519073e-3 8.3334519073e-3 8.3334519073e-3)))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (v128.const f32x4 4.1665795894e-2 4.1665795894e-2 4.1665795894e-2 4.1665795894e-2)))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (v128.const f32x4 1.6666665459e-1 1.6666665459e-1 1.6666665459e-1 1.6666665459e-1)))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (v128.const f32x4 5.0000001201e-1 5.0000001201e-1 5.0000001201e-1 5.0000001201e-1)))
    (local.set $p (f32x4.add (f32x4.add (f32x4.mul (f32x4.mul (local.get $p) (local.get $r)) (local.get $r)) (local.get $r)) (v128.const f32x4 1 1 1 1)))
    ;; times 2^n (n >= -126 after the clamp)
    (local.set $p (f32x4.mul (local.get $p) (i32x4.shl (i32x4.add (local.get $t) (v128.const i32x4 127 127 127 127)) (i32.const 23))))
    (v128.and (local.get $p) (local.get $live)))

  (func $exp1 (param $x f32) (result f32)
    (f32x4.extract_lane 0 (call $exp4 (f32x4.splat (local.get $x)))))

  ;; Natural log of z > 0 in float64: z = 2^k m with m in [sqrt(1/2), sqrt(2)), then
  ;; ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172, by its series to s^23.
  (func $ln (param $z f64) (result f64)
    (local $bits i64) (local $k f64) (local $m f64) (local $s f64) (local $s2 f64) (local $sum f64)
    (local.set $bits (i64.reinterpret_f64 (local.get $z)))
    (local.set $k (f64.convert_i64_s (i64.sub (i64.shr_u (local.get $bits) (i64.const 52)) (i64.const 1023))))
    (local.set $m (f64.reinterpret_i64 (i64.or (i64.and (local.get $bits) (i64.const 0x000fffffffffffff)) (i64.const 0x3ff0000000000000))))
    (if (f64.gt (local.get $m) (f64.const 1.4142135623730951))
      (then
        (local.set $m (f64.mul (local.get $m) (f64.const 0.5)))
        (local.set $k (f64.add (local.get $k) (f64.const 1)))))
    (local.set $s (f64.div (f64.sub (local.get $m) (f64.const 1)) (f64.add (local.get $m) (f64.const 1))))
    (local.set $s2 (f64.mul (local.get $s) (local.get $s)))
    (local.set $sum (f64.const 0.043478260869565216))
    (local.set $sum (f64.add (f64.mul (local.get $sum) (local.get $s2)) (f64.const 0.047619047619047616)))
    (local.set $sum (f64.add (f64.mul (local.get $sum) (local.get $s2)) (f64.const 0.05263157894736842)))
    (local.set $sum (f64.add (f64.mul (local.get $sum) (local.get $s2)) (f64.const 0.058823529411764705)))
    (local.set $sum (f64.add (f64.mul (local.get $sum) (local.get $s2)) (f64.const 0.06666666666666667)))
    (local.set $sum (f64.add (f64.mul (local.get $sum) (local.get $s2)) (f64.const 0.07692307692307693)))
    (local.set $sum (f64.add (f64.mul (local.get $sum) (local.get $s2)) (f64.const 0.09090909090909091)))
    (local.set $sum (f64.add (f64.mul (local.get $sum) (local.get $s2)) (f64.const 0.1111111111111111)))
    (local.set $sum (f64.add (f64.mul (local.get $sum) (local.get $s2)) (f64.const 0.14285714285714285)))
    (local.set $sum (f64.add (f64.mul (local.get $sum) (local.get $s2)) (f64.const 0.2)))
    (local.set $sum (f64.add (f64.mul (local.get $sum) (local.get $s2)) (f64.const 0.3333333333333333)))
    (local.set $sum (f64.add (f64.mul (local.get $sum) (local.get $s2)) (f64.const 1)))
    (f64.add (f64.mul (local.get $k) (f64.const 0.6931471805599453)) (f64.mul (f64.mul (f64.const 2) (local.get $s)) (local.get $sum))))

  ;; A row's running softmax sums, blockwise in one pass over memory: each block of BLOCK (256)
  ;; values is read for its maximum and then, from cache, for its exponentials. When a block
  ;; raises the row's maximum, the sums so far are rescaled to it.
  (global $mraw (mut f32) (f32.const 0))   ;; the largest raw logit so far
  (global $m (mut f32) (f32.const 0))      ;; $mraw * invT
  (global $Z (mut f64) (f64.const 0))      ;; sum exp(z * invT - m)
  (global $S (mut f64) (f64.const 0))      ;; sum exp(z * invT - m) (z * invT - m)
  (global $maxAt (mut i32) (i32.const 0))  ;; byte offset in the row of the block holding the first maximum
  (global $bZ (mut f64) (f64.const 0))     ;; the last block's own sums
  (global $bS (mut f64) (f64.const 0))

  ;; The largest of n floats at $p.
  (func $blockMax (param $p i32) (param $n i32) (result f32)
    (local $i i32) (local $end i32) (local $vm v128) (local $m f32)
    (local.set $vm (v128.const f32x4 -inf -inf -inf -inf))
    (local.set $end (i32.shl (i32.and (local.get $n) (i32.const -4)) (i32.const 2)))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $vm (f32x4.max (local.get $vm) (v128.load (i32.add (local.get $p) (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $each)))
    (local.set $m (f32.max (f32.max (f32x4.extract_lane 0 (local.get $vm)) (f32x4.extract_lane 1 (local.get $vm))) (f32.max (f32x4.extract_lane 2 (local.get $vm)) (f32x4.extract_lane 3 (local.get $vm)))))
    (local.set $end (i32.shl (local.get $n) (i32.const 2)))
    (block $tailDone
      (loop $tail
        (br_if $tailDone (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $m (f32.max (local.get $m) (f32.load (i32.add (local.get $p) (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $tail)))
    (local.get $m))

  ;; $bZ, $bS = the sums of n floats at $p at the current $m.
  (func $blockSums (param $p i32) (param $n i32) (param $invT f32)
    (local $i i32) (local $end i32) (local $d f32) (local $e f32)
    (local $vInvT v128) (local $vM v128) (local $vd v128) (local $ve v128)
    (local $z0 v128) (local $z1 v128) (local $s0 v128) (local $s1 v128)
    (local.set $vInvT (f32x4.splat (local.get $invT)))
    (local.set $vM (f32x4.splat (global.get $m)))
    (local.set $end (i32.shl (i32.and (local.get $n) (i32.const -4)) (i32.const 2)))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $vd (f32x4.sub (f32x4.mul (v128.load (i32.add (local.get $p) (local.get $i))) (local.get $vInvT)) (local.get $vM)))
        (local.set $ve (call $exp4 (local.get $vd)))
        (local.set $z0 (f32x4.add (local.get $z0) (local.get $ve)))
        (local.set $s0 (f32x4.add (local.get $s0) (f32x4.mul (local.get $ve) (local.get $vd))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $each)))
    ;; each lane summed at most 64 terms in float32; the lanes and the blocks add in float64
    (local.set $z1 (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $z0) (local.get $z0))))
    (local.set $z0 (f64x2.add (f64x2.promote_low_f32x4 (local.get $z0)) (local.get $z1)))
    (local.set $s1 (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $s0) (local.get $s0))))
    (local.set $s0 (f64x2.add (f64x2.promote_low_f32x4 (local.get $s0)) (local.get $s1)))
    (global.set $bZ (f64.add (f64x2.extract_lane 0 (local.get $z0)) (f64x2.extract_lane 1 (local.get $z0))))
    (global.set $bS (f64.add (f64x2.extract_lane 0 (local.get $s0)) (f64x2.extract_lane 1 (local.get $s0))))
    (local.set $end (i32.shl (local.get $n) (i32.const 2)))
    (block $tailDone
      (loop $tail
        (br_if $tailDone (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $d (f32.sub (f32.mul (f32.load (i32.add (local.get $p) (local.get $i))) (local.get $invT)) (global.get $m)))
        (local.set $e (call $exp1 (local.get $d)))
        (global.set $bZ (f64.add (global.get $bZ) (f64.promote_f32 (local.get $e))))
        (global.set $bS (f64.add (global.get $bS) (f64.promote_f32 (f32.mul (local.get $e) (local.get $d)))))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $tail))))

  ;; $m, $Z, $S of a row of V floats, and $maxAt. With $blocks (not 0), each block's own Z and
  ;; the $m it was taken at are stored there as two float64s.
  (func $rowSums (param $row i32) (param $V i32) (param $invT f32) (param $blocks i32)
    (local $off i32) (local $n i32) (local $bm f32) (local $mNew f32) (local $f f64) (local $p i32)
    (global.set $mraw (f32.const -inf))
    (global.set $m (f32.const -inf))
    (global.set $Z (f64.const 0))
    (global.set $S (f64.const 0))
    (global.set $maxAt (i32.const 0))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $off) (local.get $V)))
        (local.set $n (select (i32.const 256) (i32.sub (local.get $V) (local.get $off)) (i32.lt_u (i32.add (local.get $off) (i32.const 256)) (local.get $V))))
        (local.set $p (i32.add (local.get $row) (i32.shl (local.get $off) (i32.const 2))))
        (local.set $bm (call $blockMax (local.get $p) (local.get $n)))
        (if (f32.gt (local.get $bm) (global.get $mraw))
          (then
            (local.set $mNew (f32.mul (local.get $bm) (local.get $invT)))
            (if (f64.gt (global.get $Z) (f64.const 0))
              (then
                ;; sums at the new maximum: Z' = f Z, S' = f (S + (m - m') Z), f = exp(m - m')
                (local.set $f (f64.promote_f32 (call $exp1 (f32.sub (global.get $m) (local.get $mNew)))))
                (global.set $S (f64.mul (local.get $f) (f64.add (global.get $S) (f64.mul (f64.promote_f32 (f32.sub (global.get $m) (local.get $mNew))) (global.get $Z)))))
                (global.set $Z (f64.mul (local.get $f) (global.get $Z)))))
            (global.set $mraw (local.get $bm))
            (global.set $m (local.get $mNew))
            (global.set $maxAt (i32.shl (local.get $off) (i32.const 2)))))
        (call $blockSums (local.get $p) (local.get $n) (local.get $invT))
        (global.set $Z (f64.add (global.get $Z) (global.get $bZ)))
        (global.set $S (f64.add (global.get $S) (global.get $bS)))
        (if (local.get $blocks)
          (then
            (f64.store (local.get $blocks) (global.get $bZ))
            (f64.store offset=8 (local.get $blocks) (f64.promote_f32 (global.get $m)))
            (local.set $blocks (i32.add (local.get $blocks) (i32.const 16)))))
        (local.set $off (i32.add (local.get $off) (i32.const 256)))
        (br $each))))

  ;; stats: for each row r, at temperature 1 / invT, out[r] = (log-sum-exp, logprob of ids[r], entropy), float32.
  ;; With $c1 (not 0), also the gradients of both with respect to the row's raw logits:
  ;; d logprob / dz = (onehot(id) - p) / T into c1 [R, V]; d entropy / dz = -p (log p + H) / T
  ;; over z itself (each element is read before it is overwritten).
  (func (export "stats")
    (param $z i32) (param $ids i32) (param $R i32) (param $V i32) (param $invT f32) (param $out i32) (param $c1 i32)
    (local $r i32) (local $i i32) (local $row i32) (local $grad i32) (local $end i32) (local $tailEnd i32) (local $id i32)
    (local $m f32) (local $d f32) (local $p f32) (local $invZ f32) (local $lz f32) (local $h f32) (local $neg f32)
    (local $logZ f64) (local $H f64)
    (local $vInvT v128) (local $vM v128) (local $vd v128) (local $vp v128)
    (local $vInvZ v128) (local $vLz v128) (local $vH v128) (local $vNeg v128)
    (local.set $vInvT (f32x4.splat (local.get $invT)))
    (local.set $neg (f32.neg (local.get $invT)))
    (local.set $vNeg (f32x4.splat (local.get $neg)))
    (local.set $end (i32.shl (i32.and (local.get $V) (i32.const -4)) (i32.const 2)))
    (local.set $tailEnd (i32.shl (local.get $V) (i32.const 2)))
    (block $rowsDone
      (loop $rows
        (br_if $rowsDone (i32.ge_u (local.get $r) (local.get $R)))
        (local.set $row (i32.add (local.get $z) (i32.mul (local.get $r) (local.get $tailEnd))))
        (local.set $grad (i32.add (local.get $c1) (i32.mul (local.get $r) (local.get $tailEnd))))
        (call $rowSums (local.get $row) (local.get $V) (local.get $invT) (i32.const 0))
        (local.set $m (global.get $m))
        ;; log Z = lse - max; H = -sum p log p = log Z - S / Z (both terms >= 0: no cancellation).
        (local.set $logZ (call $ln (global.get $Z)))
        (local.set $H (f64.sub (local.get $logZ) (f64.div (global.get $S) (global.get $Z))))
        (local.set $id (i32.load (i32.add (local.get $ids) (i32.shl (local.get $r) (i32.const 2)))))
        (local.set $d (f32.sub (f32.mul (f32.load (i32.add (local.get $row) (i32.shl (local.get $id) (i32.const 2)))) (local.get $invT)) (local.get $m)))
        (local.set $i (i32.add (local.get $out) (i32.mul (local.get $r) (i32.const 12))))
        (f32.store (local.get $i) (f32.demote_f64 (f64.add (f64.promote_f32 (local.get $m)) (local.get $logZ))))
        (f32.store offset=4 (local.get $i) (f32.demote_f64 (f64.sub (f64.promote_f32 (local.get $d)) (local.get $logZ))))
        (f32.store offset=8 (local.get $i) (f32.demote_f64 (local.get $H)))
        (if (local.get $c1)
          (then
            (local.set $invZ (f32.demote_f64 (f64.div (f64.const 1) (global.get $Z))))
            (local.set $lz (f32.demote_f64 (local.get $logZ)))
            (local.set $h (f32.demote_f64 (local.get $H)))
            (local.set $vM (f32x4.splat (local.get $m)))
            (local.set $vInvZ (f32x4.splat (local.get $invZ)))
            (local.set $vLz (f32x4.splat (local.get $lz)))
            (local.set $vH (f32x4.splat (local.get $h)))
            (local.set $i (i32.const 0))
            (block $gradDone
              (loop $grads
                (br_if $gradDone (i32.ge_u (local.get $i) (local.get $end)))
                (local.set $vd (f32x4.sub (f32x4.mul (v128.load (i32.add (local.get $row) (local.get $i))) (local.get $vInvT)) (local.get $vM)))
                (local.set $vp (f32x4.mul (call $exp4 (local.get $vd)) (local.get $vInvZ)))
                ;; log p = d - log Z
                (local.set $vd (f32x4.sub (local.get $vd) (local.get $vLz)))
                (v128.store (i32.add (local.get $grad) (local.get $i)) (f32x4.mul (local.get $vp) (local.get $vNeg)))
                (v128.store (i32.add (local.get $row) (local.get $i)) (f32x4.mul (f32x4.mul (local.get $vp) (f32x4.add (local.get $vd) (local.get $vH))) (local.get $vNeg)))
                (local.set $i (i32.add (local.get $i) (i32.const 16)))
                (br $grads)))
            (block $gradTailDone
              (loop $gradTail
                (br_if $gradTailDone (i32.ge_u (local.get $i) (local.get $tailEnd)))
                (local.set $d (f32.sub (f32.mul (f32.load (i32.add (local.get $row) (local.get $i))) (local.get $invT)) (local.get $m)))
                (local.set $p (f32.mul (call $exp1 (local.get $d)) (local.get $invZ)))
                (local.set $d (f32.sub (local.get $d) (local.get $lz)))
                (f32.store (i32.add (local.get $grad) (local.get $i)) (f32.mul (local.get $p) (local.get $neg)))
                (f32.store (i32.add (local.get $row) (local.get $i)) (f32.mul (f32.mul (local.get $p) (f32.add (local.get $d) (local.get $h))) (local.get $neg)))
                (local.set $i (i32.add (local.get $i) (i32.const 4)))
                (br $gradTail)))
            ;; the target's one-hot term
            (local.set $i (i32.add (local.get $grad) (i32.shl (local.get $id) (i32.const 2))))
            (f32.store (local.get $i) (f32.add (f32.load (local.get $i)) (local.get $invT)))))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $rows))))

  ;; sample: for each row r with draws[r] >= 0, a token of softmax(z * invT) by inverse CDF at
  ;; draws[r] (uniform in [0, 1)), or the first largest logit when $greedy; out[r] = (token,
  ;; its logprob), float32. A row with a negative draw (finished) is skipped. $blocks: room
  ;; for 16 bytes per block of 256 logits (each block's sum, so the draw reads one block again).
  (func (export "sample")
    (param $z i32) (param $draws i32) (param $R i32) (param $V i32) (param $invT f32) (param $greedy i32) (param $out i32) (param $blocks i32)
    (local $r i32) (local $i i32) (local $row i32) (local $tailEnd i32) (local $token i32) (local $b i32) (local $nBlocks i32) (local $n i32)
    (local $m f32) (local $u f32) (local $d f32)
    (local $logZ f64) (local $target f64) (local $cum f64) (local $before f64) (local $total f64) (local $part f64) (local $scaled i32)
    (local.set $tailEnd (i32.shl (local.get $V) (i32.const 2)))
    (local.set $nBlocks (i32.shr_u (i32.add (local.get $V) (i32.const 255)) (i32.const 8)))
    (block $rowsDone
      (loop $rows
        (br_if $rowsDone (i32.ge_u (local.get $r) (local.get $R)))
        (local.set $u (f32.load (i32.add (local.get $draws) (i32.shl (local.get $r) (i32.const 2)))))
        (if (f32.ge (local.get $u) (f32.const 0))
          (then
            (local.set $row (i32.add (local.get $z) (i32.mul (local.get $r) (local.get $tailEnd))))
            (call $rowSums (local.get $row) (local.get $V) (local.get $invT) (local.get $blocks))
            (local.set $m (global.get $m))
            (local.set $logZ (call $ln (global.get $Z)))
            (local.set $token (i32.sub (local.get $V) (i32.const 1)))
            (if (local.get $greedy)
              (then
                ;; the first column holding the maximum, in the first block that reached it
                (local.set $i (global.get $maxAt))
                (block $found
                  (loop $scan
                    (br_if $found (i32.ge_u (local.get $i) (local.get $tailEnd)))
                    (if (f32.eq (f32.load (i32.add (local.get $row) (local.get $i))) (global.get $mraw))
                      (then
                        (local.set $token (i32.shr_u (local.get $i) (i32.const 2)))
                        (br $found)))
                    (local.set $i (i32.add (local.get $i) (i32.const 4)))
                    (br $scan))))
              (else
                ;; each block's sum at the row's final maximum (in place), and their total
                (local.set $total (f64.const 0))
                (local.set $b (i32.const 0))
                (block $scaledDone
                  (loop $scale
                    (br_if $scaledDone (i32.ge_u (local.get $b) (local.get $nBlocks)))
                    (local.set $scaled (i32.add (local.get $blocks) (i32.shl (local.get $b) (i32.const 4))))
                    (local.set $part (f64.mul (f64.load (local.get $scaled)) (f64.promote_f32 (call $exp1 (f32.sub (f32.demote_f64 (f64.load offset=8 (local.get $scaled))) (local.get $m))))))
                    (f64.store (local.get $scaled) (local.get $part))
                    (local.set $total (f64.add (local.get $total) (local.get $part)))
                    (local.set $b (i32.add (local.get $b) (i32.const 1)))
                    (br $scale)))
                ;; the block where the cumulative mass passes u total, then the token inside it
                (local.set $target (f64.mul (f64.promote_f32 (local.get $u)) (local.get $total)))
                (local.set $cum (f64.const 0))
                (local.set $b (i32.const 0))
                (block $found
                  (loop $walk
                    (br_if $found (i32.ge_u (local.get $b) (local.get $nBlocks)))
                    (local.set $part (f64.load (i32.add (local.get $blocks) (i32.shl (local.get $b) (i32.const 4)))))
                    (if (f64.lt (local.get $target) (f64.add (local.get $cum) (local.get $part)))
                      (then
                        (local.set $before (local.get $cum))
                        (local.set $i (i32.shl (local.get $b) (i32.const 10)))
                        (local.set $n (select (i32.add (local.get $i) (i32.const 1024)) (local.get $tailEnd) (i32.lt_u (i32.add (local.get $i) (i32.const 1024)) (local.get $tailEnd))))
                        (block $inBlockDone
                          (loop $inBlock
                            (br_if $inBlockDone (i32.ge_u (local.get $i) (local.get $n)))
                            (local.set $cum (f64.add (local.get $cum) (f64.promote_f32 (call $exp1 (f32.sub (f32.mul (f32.load (i32.add (local.get $row) (local.get $i))) (local.get $invT)) (local.get $m))))))
                            (if (f64.lt (local.get $target) (local.get $cum))
                              (then
                                (local.set $token (i32.shr_u (local.get $i) (i32.const 2)))
                                (br $found)))
                            (local.set $i (i32.add (local.get $i) (i32.const 4)))
                            (br $inBlock)))
                        ;; rounding left the mass short of the target inside the block: go on
                        ;; from the block's sum, as if it had been passed over
                        (local.set $cum (local.get $before))))
                    (local.set $cum (f64.add (local.get $cum) (local.get $part)))
                    (local.set $b (i32.add (local.get $b) (i32.const 1)))
                    (br $walk)))))
            (local.set $d (f32.sub (f32.mul (f32.load (i32.add (local.get $row) (i32.shl (local.get $token) (i32.const 2)))) (local.get $invT)) (local.get $m)))
            (f32.store (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 3))) (f32.convert_i32_u (local.get $token)))
            (f32.store offset=4 (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 3))) (f32.demote_f64 (f64.sub (f64.promote_f32 (local.get $d)) (local.get $logZ))))))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $rows))))
)
