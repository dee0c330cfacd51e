/**
 * Sampling with top-k and top-p on the device, one workgroup per row, in one dispatch.
 *
 * The CPU sampler (sampler.ts, pickToken) keeps the most likely tokens (ties by lower id) while
 * fewer than k are kept and their mass is below p times the whole mass; the kept tokens are a
 * prefix of that order. Here the last kept token's logit is found by a radix descent over the
 * logits' bits (8 passes of 4 bits; the order of the logits is the order of the probabilities):
 * each pass counts the tokens and sums the mass of each 4-bit digit among the tokens that share
 * the digits found so far, and keeps the digit where the kept prefix ends. Tokens tied with it
 * are kept in id order as far as the CPU would keep them.
 *
 * The draw is then inverted over the kept tokens in id order, where the CPU walks them most
 * likely first: the same tokens and mass, so the same distribution and the same draws from the
 * run's generator, but a given draw may name another kept token than on the CPU. Masses are
 * compensated float32 (the CPU's float64): a p boundary within rounding may differ by a token.
 */
import type * as tf from '@tensorflow/tfjs';
import { ROW_THREADS, groupProgram, registerProgramKernel, runKernel } from './program';
import { DRAW_OWNER, KAHAN, ROW_SLICE, SLICE_MASS } from './sampling-snippets';

const TRUNCATED_SAMPLE = 'TurnLabSampleTruncated';
const DIGITS = 16;


export function registerTruncatedSamplingKernel(): void {
  registerProgramKernel(TRUNCATED_SAMPLE, ({ logits, draws }, { inverseTemperature, topK, topP }) => {
    const rows = logits.shape[0];
    const program = groupProgram(
      'sample_truncated',
      ['Logits', 'Draws'],
      [rows, 2],
      rows,
      `var<workgroup> binCount : array<u32, ${ROW_THREADS * DIGITS}>;
      var<workgroup> binMass : array<f32, ${ROW_THREADS * DIGITS}>;
      var<workgroup> sums : array<f32, ${ROW_THREADS}>;
      var<workgroup> ties : array<u32, ${ROW_THREADS}>;
      // prefix, count above, ties kept, owner thread
      var<workgroup> found : array<u32, 4>;
      // max, whole mass, mass above, kept mass, mass before the owner
      var<workgroup> stats : array<f32, 5>;
      // Logits as unsigned keys in the same order.
      fn keyOf(z : f32) -> u32 {
        let b = bitcast<u32>(z);
        return select(b ^ 0x80000000u, ~b, (b & 0x80000000u) != 0u);
      }
      fn logitOf(key : u32) -> f32 {
        return bitcast<f32>(select(~key, key ^ 0x80000000u, (key & 0x80000000u) != 0u));
      }`,
      `${ROW_SLICE}
        var m = -3.0e38;
        for (var i = lo; i < hi; i = i + 1) { m = max(m, Logits[base + i] * inv); }
        sums[tid] = m;
        workgroupBarrier();
        if (tid == 0) {
          var best = sums[0];
          for (var t = 1; t < ${ROW_THREADS}; t = t + 1) { best = max(best, sums[t]); }
          stats[0] = best;
          found[0] = 0u;
          found[1] = 0u;
          stats[2] = 0.0;
        }
        workgroupBarrier();
        let mx = stats[0];
        ${SLICE_MASS('mx')}
        if (tid == 0) {
          var total = 0.0;
          var lostTotal = 0.0;
          for (var t = 0; t < ${ROW_THREADS}; t = t + 1) { ${KAHAN('total', 'lostTotal', 'sums[t]')} }
          stats[1] = total;
        }
        workgroupBarrier();
        let k = u32(uniforms.topK);
        // No mass limit at top-p 1 (rounding must not drop the last tokens).
        let massGoal = select(uniforms.topP * stats[1], 3.0e38, uniforms.topP >= 1.0);
        // The radix descent: 8 passes of 4 bits, highest first.
        for (var level = 0; level < 8; level = level + 1) {
          let shift = u32(28 - 4 * level);
          let mask = select(0xFFFFFFFFu << (shift + 4u), 0u, level == 0);
          let prefix = found[0];
          // Zeroed explicitly: a declaration inside the loop is not re-zeroed on every compiler.
          var counts : array<u32, ${DIGITS}>;
          var masses : array<f32, ${DIGITS}>;
          for (var d = 0; d < ${DIGITS}; d = d + 1) {
            counts[d] = 0u;
            masses[d] = 0.0;
          }
          for (var i = lo; i < hi; i = i + 1) {
            let z = Logits[base + i];
            let key = keyOf(z);
            if ((key & mask) == prefix) {
              let d = (key >> shift) & 15u;
              counts[d] = counts[d] + 1u;
              masses[d] = masses[d] + exp(z * inv - mx);
            }
          }
          for (var d = 0; d < ${DIGITS}; d = d + 1) {
            binCount[tid * ${DIGITS} + d] = counts[d];
            binMass[tid * ${DIGITS} + d] = masses[d];
          }
          workgroupBarrier();
          if (tid == 0) {
            // Digits from the most likely down: the last one whose first token is kept holds
            // the last kept token (keeping is monotone along the order).
            var count = found[1];
            var mass = stats[2];
            var chosen = 0u;
            var chosenCount = count;
            var chosenMass = mass;
            for (var d = ${DIGITS - 1}; d >= 0; d = d - 1) {
              var c = 0u;
              var w = 0.0;
              for (var t = 0; t < ${ROW_THREADS}; t = t + 1) {
                c = c + binCount[t * ${DIGITS} + d];
                w = w + binMass[t * ${DIGITS} + d];
              }
              if (c > 0u && count < k && mass < massGoal) {
                chosen = u32(d);
                chosenCount = count;
                chosenMass = mass;
              }
              count = count + c;
              mass = mass + w;
            }
            found[0] = prefix | (chosen << shift);
            found[1] = chosenCount;
            stats[2] = chosenMass;
          }
          workgroupBarrier();
        }
        let last = found[0];
        // Tokens tied with the last kept one: kept in id order while the CPU would keep them.
        var mine = 0u;
        for (var i = lo; i < hi; i = i + 1) { if (keyOf(Logits[base + i]) == last) { mine = mine + 1u; } }
        ties[tid] = mine;
        workgroupBarrier();
        if (tid == 0) {
          var tied = 0u;
          for (var t = 0; t < ${ROW_THREADS}; t = t + 1) { tied = tied + ties[t]; }
          let p = exp(logitOf(last) * inv - mx);
          var keep = 0u;
          while (keep < tied && found[1] + keep < k && stats[2] + f32(keep) * p < massGoal) { keep = keep + 1u; }
          found[2] = max(keep, 1u);
        }
        workgroupBarrier();
        var tieAt = 0u;
        for (var t = 0; t < tid; t = t + 1) { tieAt = tieAt + ties[t]; }
        let keptTies = found[2];
        // Kept mass of this thread's slice, then the owner of the draw as in the plain sampler.
        var kept = 0.0;
        var keptLost = 0.0;
        var seen = tieAt;
        for (var i = lo; i < hi; i = i + 1) {
          let z = Logits[base + i];
          let key = keyOf(z);
          var keep = key > last;
          if (key == last) {
            keep = seen < keptTies;
            seen = seen + 1u;
          }
          if (keep) { ${KAHAN('kept', 'keptLost', 'exp(z * inv - mx)')} }
        }
        workgroupBarrier();
        sums[tid] = kept;
        workgroupBarrier();
        if (tid == 0) {
          ${DRAW_OWNER}
          var lastOwner = 0;
          for (var t = 0; t < ${ROW_THREADS}; t = t + 1) { if (sums[t] > 0.0) { lastOwner = t; } }
          // Rounding past the last kept mass: the last kept token (the owner walks to its end).
          if (owner < 0) { owner = lastOwner; before = -3.0e38; }
          stats[3] = total;
          stats[4] = before;
          found[3] = u32(owner);
        }
        workgroupBarrier();
        if (tid == i32(found[3])) {
          let goal = Draws[row] * stats[3];
          var cumulative = stats[4];
          var lostCumulative = 0.0;
          var token = -1;
          var seenTies = tieAt;
          for (var i = lo; i < hi; i = i + 1) {
            let z = Logits[base + i];
            let key = keyOf(z);
            var keep = key > last;
            if (key == last) {
              keep = seenTies < keptTies;
              seenTies = seenTies + 1u;
            }
            if (keep) {
              token = i;
              ${KAHAN('cumulative', 'lostCumulative', 'exp(z * inv - mx)')}
              if (goal < cumulative) { break; }
            }
          }
          if (group < uniforms.logitsShape.x) {
            result[group * 2] = f32(token);
            result[group * 2 + 1] = Logits[base + token] * inv - (mx + log(stats[1]));
          }
        }`,
      'inverseTemperature : f32, topK : i32, topP : f32,',
    );
    return {
      program,
      inputs: [logits, draws],
      uniforms: [
        { type: 'float32', data: [inverseTemperature] },
        { type: 'int32', data: [topK] },
        { type: 'float32', data: [topP] },
      ],
    };
  });
}

/**
 * One token per row of logits [batch, vocab] from the top-k / top-p truncated distribution at
 * `temperature` (topK 0: no count limit; topP 1: no mass limit), by inverse CDF with draws [batch]
 * over the kept tokens in id order. Returns [batch, 2]: id and its log-probability under the whole
 * temperature-scaled distribution (as the CPU sampler reports it).
 */
export function sampleTruncatedRows(logits: tf.Tensor2D, draws: tf.Tensor1D, temperature: number, topK: number, topP: number): tf.Tensor2D {
  const vocab = logits.shape[1];
  return runKernel(TRUNCATED_SAMPLE, { logits, draws }, { inverseTemperature: 1 / temperature, topK: topK > 0 ? Math.min(topK, vocab) : vocab, topP }) as tf.Tensor2D;
}
