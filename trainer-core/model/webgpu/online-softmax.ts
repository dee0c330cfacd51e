/**
 * The WGSL loop both decode-attention kernels share: one workgroup of ROW_THREADS threads per
 * (row, query head) walks the keys in chunks of ROW_THREADS, each thread scoring one key, and
 * keeps a running softmax (max, total, and the weighted sum of values in two output columns per
 * thread), so no score matrix is written. The caller declares `scores` (workgroup memory of
 * ROW_THREADS floats) and `keys`, and reads acc0 / total and acc1 / total for columns tid and
 * tid + ROW_THREADS after the loop.
 *
 * `score` is the WGSL expression of key j's score (its bias added), `value(key, e)` that of
 * element e of key `key`'s value.
 */
import { ROW_THREADS } from './program';

export function onlineSoftmaxLoop(score: string, value: (key: string, e: string) => string): string {
  return `
        var runningMax = -3.0e38;
        var total = 0.0;
        var acc0 = 0.0;
        var acc1 = 0.0;
        let col1 = tid + ${ROW_THREADS};
        for (var start = 0; start < keys; start = start + ${ROW_THREADS}) {
          let j = start + tid;
          var score = -3.0e38;
          if (j < keys) { score = ${score}; }
          scores[tid] = score;
          workgroupBarrier();
          let count = min(${ROW_THREADS}, keys - start);
          var chunkMax = runningMax;
          for (var i = 0; i < count; i = i + 1) { chunkMax = max(chunkMax, scores[i]); }
          let correction = exp(runningMax - chunkMax);
          total = total * correction;
          acc0 = acc0 * correction;
          acc1 = acc1 * correction;
          for (var i = 0; i < count; i = i + 1) {
            let p = exp(scores[i] - chunkMax);
            total = total + p;
            if (tid < dim) { acc0 = acc0 + p * ${value('start + i', 'tid')}; }
            if (col1 < dim) { acc1 = acc1 + p * ${value('start + i', 'col1')}; }
          }
          runningMax = chunkMax;
          workgroupBarrier();
        }`;
}
