/**
 * WGSL shared by the sampling kernels (decode-sampling.ts, truncated-sampling.ts): one workgroup
 * of ROW_THREADS threads per row of logits, each thread owning a contiguous slice of the ids, and
 * float32 sums with Kahan's compensation (a plain float32 running sum over 151,936 probabilities
 * drifts by several tokens' worth of mass from the CPU sampler's float64 sum).
 */
import { ROW_THREADS } from './program';

/** sum += value, with the rounding lost so far kept in `lost`. */
export const KAHAN = (sum: string, lost: string, value: string) => `{ let y = ${value} - ${lost}; let t = ${sum} + y; ${lost} = (t - ${sum}) - y; ${sum} = t; }`;

/** The row of this workgroup and this thread's slice [lo, hi) of its ids (inputs Logits; uniform inverseTemperature). */
export const ROW_SLICE = `
        let vocab = uniforms.logitsShape.y;
        let row = min(group, uniforms.logitsShape.x - 1);
        let base = row * vocab;
        let inv = uniforms.inverseTemperature;
        let segment = (vocab + ${ROW_THREADS - 1}) / ${ROW_THREADS};
        let lo = min(tid * segment, vocab);
        let hi = min(lo + segment, vocab);`;

/** sums[tid] = this slice's mass exp(z * inv - mx), then a barrier (every thread must reach it). */
export const SLICE_MASS = (mx: string) => `
        var s = 0.0;
        var lost = 0.0;
        for (var i = lo; i < hi; i = i + 1) { let p = exp(Logits[base + i] * inv - ${mx}); ${KAHAN('s', 'lost', 'p')} }
        sums[tid] = s;
        workgroupBarrier();`;

/**
 * For one thread: `total` = the slices' masses in sums[], and `owner` = the first slice whose
 * mass passes Draws[row] * total (-1 if rounding leaves the draw past the last), `before` the
 * mass of the slices ahead of it.
 */
export const DRAW_OWNER = `
          var total = 0.0;
          var lostTotal = 0.0;
          for (var t = 0; t < ${ROW_THREADS}; t = t + 1) { ${KAHAN('total', 'lostTotal', 'sums[t]')} }
          let goal = Draws[row] * total;
          var before = 0.0;
          var lostBefore = 0.0;
          var owner = -1;
          for (var t = 0; t < ${ROW_THREADS}; t = t + 1) {
            if (owner < 0 && goal < before + sums[t]) { owner = t; }
            if (owner < 0) { ${KAHAN('before', 'lostBefore', 'sums[t]')} }
          }`;
