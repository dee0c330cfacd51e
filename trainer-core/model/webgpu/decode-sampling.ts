/**
 * The two ends of a decoding step that stay on the GPU:
 *
 * - embed: the fed ids (column 0 of an [batch, k] float tensor: the previous step's sampled ids
 *   as the sample kernel wrote them, or ids uploaded by the CPU) looked up as columns of the
 *   [hidden, vocab] embedding (tfjs: a gather and a transpose), or as rows of a [vocab, width]
 *   one with learned positions added (TurnLab's own transformer);
 * - sample: one workgroup per row draws a token from softmax(logits / temperature) by inverse
 *   CDF in id order, with the uniform draw the CPU took from the run's seeded generator (the
 *   same stream and order as the CPU sampler: one draw per unfinished row, rows in order), or
 *   the argmax (lowest id on ties); it writes [batch, 2]: the id and its log-probability under
 *   the full temperature-scaled distribution. Only these 2 numbers per row are read back.
 *
 * The sums are compensated float32 here where the CPU sampler sums in float64: a draw that lands
 * within float32 rounding of a boundary between two tokens may pick the neighbour.
 */
import type * as tf from '@tensorflow/tfjs';
import { ROW_THREADS, elementwiseProgram, groupProgram, registerProgramKernel, runKernel } from './program';
import { DRAW_OWNER, KAHAN, ROW_SLICE, SLICE_MASS } from './sampling-snippets';
import { registerTruncatedSamplingKernel, sampleTruncatedRows } from './truncated-sampling';

const EMBED = 'TurnLabEmbedColumns';

const EMBED_ROWS = 'TurnLabEmbedRows';
const SAMPLE = 'TurnLabSampleRows';

export function registerDecodeSamplingKernels(): void {
  registerTruncatedSamplingKernel();
  registerProgramKernel(EMBED, ({ table, ids }) => ({
    program: elementwiseProgram(
      'embed_columns',
      ['Table', 'Ids'],
      [ids.shape[0], table.shape[0]],
      `
          let hidden = uniforms.tableShape.x;
          let b = index / hidden;
          let i = index - b * hidden;
          let id = i32(Ids[b * uniforms.idsShape.y]);
          setOutputAtIndex(index, Table[i * uniforms.tableShape.y + id]);`,
    ),
    inputs: [table, ids],
  }));
  registerProgramKernel(EMBED_ROWS, ({ table, ids, positionTable, positions }) => ({
    program: elementwiseProgram(
      `embed_rows${positionTable ? '_positions' : ''}`,
      ['Table', 'Ids', ...(positionTable ? ['PositionTable', 'Positions'] : [])],
      [ids.shape[0], table.shape[1]],
      `
          let width = uniforms.tableShape.y;
          let b = index / width;
          let i = index - b * width;
          let id = i32(Ids[b * uniforms.idsShape.y]);
          var value = Table[id * width + i];
          ${positionTable ? 'value = value + PositionTable[Positions[b] * width + i];' : ''}
          setOutputAtIndex(index, value);`,
    ),
    inputs: [table, ids, ...(positionTable ? [positionTable, positions] : [])],
  }));
  registerProgramKernel(SAMPLE, ({ logits, draws }, { inverseTemperature, greedy }) => {
    const rows = logits.shape[0];
    const program = groupProgram(
      `sample_rows`,
      ['Logits', 'Draws'],
      [rows, 2],
      rows,
      `var<workgroup> maxes : array<f32, ${ROW_THREADS}>;
      var<workgroup> argmaxes : array<i32, ${ROW_THREADS}>;
      var<workgroup> sums : array<f32, ${ROW_THREADS}>;
      var<workgroup> picked : array<i32, 2>;
      var<workgroup> rowStats : array<f32, 3>;`,
      `${ROW_SLICE}
        var m = -3.0e38;
        var am = vocab;
        for (var i = lo; i < hi; i = i + 1) {
          let z = Logits[base + i] * inv;
          if (z > m) { m = z; am = i; }
        }
        maxes[tid] = m;
        argmaxes[tid] = am;
        workgroupBarrier();
        if (tid == 0) {
          var best = maxes[0];
          var bestId = argmaxes[0];
          for (var t = 1; t < ${ROW_THREADS}; t = t + 1) {
            if (maxes[t] > best) { best = maxes[t]; bestId = argmaxes[t]; }
          }
          rowStats[0] = best;
          picked[0] = bestId;
        }
        workgroupBarrier();
        let mx = rowStats[0];
        ${SLICE_MASS('mx')}
        if (tid == 0) {
          ${DRAW_OWNER}
          rowStats[1] = total;
          rowStats[2] = before;
          picked[1] = select(owner, -1, uniforms.greedy != 0);
        }
        workgroupBarrier();
        // The CPU sampler's fallback when rounding leaves the draw past the last sum: the last id.
        var token = select(vocab - 1, picked[0], uniforms.greedy != 0);
        if (picked[1] >= 0) {
          let owner = picked[1];
          let olo = min(owner * segment, vocab);
          let ohi = min(olo + segment, vocab);
          let goal = Draws[row] * rowStats[1];
          var cumulative = rowStats[2];
          var lostCumulative = 0.0;
          token = ohi - 1;
          for (var i = olo; i < ohi; i = i + 1) {
            let p = exp(Logits[base + i] * inv - mx);
            ${KAHAN('cumulative', 'lostCumulative', 'p')}
            if (goal < cumulative) { token = i; break; }
          }
        }
        if (tid == 0 && group < uniforms.logitsShape.x) {
          result[group * 2] = f32(token);
          result[group * 2 + 1] = Logits[base + token] * inv - (mx + log(rowStats[1]));
        }`,
      'inverseTemperature : f32, greedy : i32,',
    );
    return { program, inputs: [logits, draws], uniforms: [{ type: 'float32', data: [inverseTemperature] }, { type: 'int32', data: [greedy] }] };
  });
}

/** Columns of table [hidden, vocab] at the ids in column 0 of ids [batch, k] (float): [batch, hidden]. */
export function embedColumnsById(table: tf.Tensor, ids: tf.Tensor2D): tf.Tensor2D {
  return runKernel(EMBED, { table, ids }) as tf.Tensor2D;
}

/**
 * Rows of table [vocab, width] at the ids in column 0 of ids [batch, k], plus rows of a learned
 * position table at positions [batch] (int32) where given: [batch, width].
 */
export function embedRowsById(table: tf.Tensor, ids: tf.Tensor2D, positionTable?: tf.Tensor, positions?: tf.Tensor): tf.Tensor2D {
  return runKernel(EMBED_ROWS, { table, ids, ...(positionTable && positions ? { positionTable, positions } : {}) }) as tf.Tensor2D;
}

/**
 * One token per row of logits [batch, vocab]: by inverse CDF with draws [batch] in [0, 1), or
 * the argmax when greedy; with top-k / top-p, over the kept tokens (truncated-sampling.ts). Returns [batch, 2]: id (as float) and its log-probability.
 */
export function sampleRows(logits: tf.Tensor2D, draws: tf.Tensor1D, temperature: number, greedy: boolean, topK = 0, topP = 1): tf.Tensor2D {
  if (!greedy && ((topK > 0 && topK < logits.shape[1]) || topP < 1)) return sampleTruncatedRows(logits, draws, temperature, topK, topP);
  return runKernel(SAMPLE, { logits, draws }, { inverseTemperature: 1 / temperature, greedy: greedy ? 1 : 0 }) as tf.Tensor2D;
}
