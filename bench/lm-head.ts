/**
 * The LM head's cost per token on wasm, for the tiny Qwen2 folder's shape (width 64, Qwen's
 * 151,936-id vocabulary; `--width`, `--vocab` for others), with the head 16-bit (BF16, as a
 * LoRA model holds its tied embedding) and float32: the three places a pretrained model's
 * iteration spends it.
 *
 * - sampling: a decoding step's logits for a batch of rows (the head's product) and the draw of
 *   each row's token (sampler.ts: the kernel, or reading them back into JavaScript), per row;
 * - scoring without a gradient (old and reference logprobs), per scored token;
 * - scoring with its gradient (the update's forward and backward), per scored token.
 *
 * Each with the fused head kernels (the default) and without (TURNLAB_FUSED_KERNELS=0's path,
 * tfjs's ops), in CPU milliseconds (robust to a shared machine's load) and wall milliseconds.
 * Run alone: npx tsx bench/lm-head.ts (USAGE lists the options).
 */
import { pathToFileURL } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../trainer-core/backend';
import { scoreThroughHead } from '../trainer-core/model/chunked-head';
import type { LmHead } from '../trainer-core/model/forward';
import { setFusedKernels } from '../trainer-core/model/fused-kernels';
import { HalfMatrix } from '../trainer-core/model/half-matrix';
import { halfDot } from '../trainer-core/model/half-ops';
import { headSoftmaxSample } from '../trainer-core/model/head-softmax';
import { pickToken } from '../trainer-core/model/sampler';
import { Rng } from '../trainer-core/rng';
import { WHOLE, runAlone, unknownOption, valueAfter, wholeNumber } from './lib/bench-args';
import { dateAndMachine } from './lib/machine';

export const USAGE = `lm-head: CPU and wall ms per token of the LM head on wasm (sampling, scoring, scoring with its gradient), fused and not, 16-bit and float32 (about 25 s on 2 cores)
usage: npm run bench -- lm-head [--width N] [--vocab N] [--rows N] [--batch N]
  --width   the hidden size, default 64 (the tiny Qwen2 folder's)
  --vocab   vocabulary rows of the head, default 151936 (Qwen's)
  --rows    tokens scored, default 108
  --batch   rows sampled in one decoding step, default 64`;

interface Options {
  width: number;
  vocab: number;
  rows: number;
  batch: number;
}

export function parseLmHeadArgs(args: readonly string[]): Options {
  const options: Options = { width: 64, vocab: 151936, rows: 108, batch: 64 };
  const names = Object.keys(options).map((key) => `--${key}`);
  for (let i = 0; i < args.length; i += 2) {
    // An own key only: `--toString` names a property every object has.
    const key = args[i].replace(/^--/, '');
    if (!args[i].startsWith('--') || !Object.hasOwn(options, key)) throw unknownOption(args[i], names);
    options[key as keyof Options] = wholeNumber(args[i], valueAfter(args, i, args[i], WHOLE));
  }
  return options;
}

/** CPU and wall milliseconds of `fn` over `reps` calls, per `units`. */
async function timed(reps: number, units: number, fn: () => Promise<void> | void): Promise<{ cpu: number; wall: number }> {
  await fn();
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < reps; i++) await fn();
  const spent = process.cpuUsage(cpu);
  return { cpu: (spent.user + spent.system) / 1000 / reps / units, wall: (performance.now() - start) / reps / units };
}

function bf16Bits(values: Float32Array): Uint16Array {
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
  return Uint16Array.from(bits, (b) => b >>> 16);
}

/** `args`: the words after `lm-head` (`npm run bench -- lm-head --width 128`). */
export default async function main(args: readonly string[]): Promise<void> {
  const o = parseLmHeadArgs(args);
  console.log(dateAndMachine());
  await selectBackend('wasm', (line) => console.log(line));
  const rng = new Rng(1);
  const table = Float32Array.from({ length: o.vocab * o.width }, () => rng.normal() * 0.05);
  const half = HalfMatrix.fromBits(bf16Bits(table), o.vocab, o.width, 'BF16');
  // The float32 head as the decoder holds a widened tied embedding: [width, vocab].
  const widened = tf.tidy(() => tf.tensor2d(bf16Values(table), [o.vocab, o.width]).transpose() as tf.Tensor2D);
  const heads: Array<[string, LmHead]> = [
    ['16-bit', { half, trainable: false }],
    ['float32', { weight: widened, vocabMajor: false, trainable: false }],
  ];
  const hidden = tf.randomNormal([o.rows, o.width], 0, 1, 'float32', 2) as tf.Tensor2D;
  const targets = Int32Array.from({ length: o.rows }, () => rng.int(o.vocab));
  const batchHidden = tf.randomNormal([o.batch, o.width], 0, 1, 'float32', 3) as tf.Tensor2D;
  const decoding = { greedy: false, temperature: 1, topP: 1, topK: 0 };
  const ms = (x: { cpu: number; wall: number }) => `${x.cpu.toFixed(2).padStart(6)} ms CPU (${x.wall.toFixed(2)} wall)`;
  console.log(`width ${o.width}, vocab ${o.vocab}; scoring ${o.rows} tokens, sampling ${o.batch} rows; per token or row`);
  for (const fused of [true, false]) {
    setFusedKernels(fused);
    for (const [name, head] of heads) {
      const label = `${name.padEnd(8)} ${fused ? 'fused  ' : 'unfused'}`;
      const logits = () => ('half' in head ? halfDot(batchHidden, head.half) : tf.matMul(batchHidden, head.weight));
      const product = await timed(3, o.batch, () => {
        logits().dispose();
      });
      const z = logits();
      // As sampler.ts draws: in the kernel where the logits are, or in JavaScript after reading them back.
      const draw = await timed(3, o.batch, async () => {
        if (fused) {
          const draws = Float32Array.from({ length: o.batch }, () => rng.next());
          headSoftmaxSample(z, o.batch, o.vocab, draws, 1, false);
        } else {
          const values = (await z.data()) as Float32Array;
          for (let b = 0; b < o.batch; b++) pickToken(values, b * o.vocab, o.vocab, decoding, rng);
        }
      });
      const forward = await timed(2, o.rows, async () => {
        const s = tf.tidy(() => {
          const scores = scoreThroughHead(hidden, targets, head, { temperature: 1 });
          return tf.stack([scores.logprobs, scores.entropy]);
        });
        await s.data();
        s.dispose();
      });
      const both = await timed(2, o.rows, async () => {
        const g = tf.tidy(() =>
          tf.grad((h: tf.Tensor) => {
            const scores = scoreThroughHead(h as tf.Tensor2D, targets, head, { temperature: 1 });
            return scores.logprobs.sum().add(scores.entropy.sum().mul(0.3));
          })(hidden),
        );
        await g.data();
        g.dispose();
      });
      z.dispose();
      console.log(`  ${label} sampling: logits ${ms(product)}, draw ${ms(draw)}; scoring: forward ${ms(forward)}, forward+backward ${ms(both)}`);
    }
  }
  setFusedKernels(true);
  console.log(`  peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB (the process so far), tensors now ${(tf.memory().numBytes / 2 ** 20).toFixed(0)} MiB`);
  tf.dispose([hidden, batchHidden, widened]);
  half.dispose();
}

/** The values the BF16 matrix holds, as float32 (exact): the float32 head holds what the 16-bit one does. */
function bf16Values(table: Float32Array): Float32Array {
  const source = new Uint32Array(table.buffer, table.byteOffset, table.length);
  return new Float32Array(Uint32Array.from(source, (b) => b & 0xffff0000).buffer);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await runAlone('lm-head', USAGE, main);
