/**
 * Host time of a decoding step on WebGPU, per dispatch and per step, broken down into its parts:
 * a decoding step of few rows is host-bound on a GPU (gpu-notes.md), so this is what to cut.
 *
 * A step here is the session's step() and its sampling (sample(), the ids it writes fed to the
 * next step), as a rollout runs them; both only record (they never wait for the device), so the
 * time spent inside them is host time: JavaScript (TurnLab's kernels, tfjs's engine and backend) and Dawn's calls.
 * Each step is recorded once the previous one's logits are read, so the device is idle (on
 * llvmpipe its work would otherwise share the CPU with the recording). The parts are timed by
 * wrapping the backend's methods and Dawn's classes for the measured steps only (medians):
 *   tfjs run     runWebGPUProgram, from the call to its return (all below are inside it)
 *   record       recordAndSubmit: uniforms, bind group, pass encoding, submits
 *   uniforms     makeUniforms (its list of shapes, a pooled uniform buffer, queue.writeBuffer)
 *   bind group   device.createBindGroup; bind group layout: pipeline.getBindGroupLayout(0)
 *   submit       submitQueue (every WEBGPU_DEFERRED_SUBMIT_BATCH_SIZE dispatches)
 * and "outside tfjs run" is the rest of the step: TurnLab's kernel code (program lookup, keys)
 * and tfjs's engine (runKernel, tidy, tensor bookkeeping).
 *
 * Both decoding paths are measured, each its own rollouts with the same ids: every step through
 * tfjs (TURNLAB_DECODE_RECORDED=0) with the split above, and the recorded step (the first step
 * through tfjs, the rest replayed by webgpu/step-recorder.ts: a uniform write, the ids' and
 * positions' copies and one compute pass), with its logits checked identical to tfjs's.
 *
 *   npx tsx bench/decode-host-time.ts [--layers 24] [--rows 64] [--steps 12] [--hidden 64] [--path tfjs|recorded]
 *   TURNLAB_DECODE_SUBMIT_EVERY=1000 npx tsx bench/decode-host-time.ts --path tfjs   # one submit a step
 *
 * A tool run on its own (bench/index.ts skips it): it needs WebGPU. The model is Qwen2-shaped
 * with random weights, small in width (host time a dispatch does not depend on it); a figure here
 * is host time on this machine's Dawn and driver, and its checksum of logits and samples compares two versions.
 */
import { performance } from 'node:perf_hooks';
import * as tf from '@tensorflow/tfjs';
import { releaseBackend, selectBackend } from '../trainer-core/backend';
import { parseHfConfig } from '../trainer-core/model/hf/config';
import { HfDecoder } from '../trainer-core/model/hf/decoder';
import { resolveTargetModules } from '../trainer-core/model/hf/lora';
import { startGpuCounter } from '../trainer-core/model/gpu-counters';
import { setRecordedDecoding } from '../trainer-core/model/webgpu/step-recorder';
import { PRESETS, randomHfTensors } from '../scripts/hf-random-model';

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

type Timed = Record<string, { ms: number; calls: number }>;

/** Wraps `owner[method]` so its time (while `on()`) adds up under `part`. */
function wrap(owner: Record<string, unknown>, method: string, part: string, timed: Timed, on: () => boolean): void {
  const original = owner[method] as (...args: unknown[]) => unknown;
  owner[method] = function (this: unknown, ...args: unknown[]) {
    if (!on()) return original.apply(this, args);
    const start = performance.now();
    try {
      return original.apply(this, args);
    } finally {
      const t = (timed[part] ??= { ms: 0, calls: 0 });
      t.ms += performance.now() - start;
      t.calls++;
    }
  };
}

async function main(): Promise<void> {
  const layers = option('layers', 24);
  const rows = option('rows', 64);
  const steps = option('steps', 12);
  const hidden = option('hidden', 64);
  const pathAt = process.argv.indexOf('--path');
  const paths = pathAt >= 0 ? [process.argv[pathAt + 1]] : ['tfjs', 'recorded'];
  if (!paths.every((p) => p === 'tfjs' || p === 'recorded')) throw new Error(`--path takes tfjs or recorded (both when not given), not ${paths[0]}`);
  await selectBackend('webgpu');
  const backend = tf.backend() as unknown as Record<string, unknown> & { device: Record<string, unknown> };
  const timed: Timed = {};
  let measuring = false;
  const on = () => measuring;
  wrap(backend, 'runWebGPUProgram', 'tfjs run', timed, on);
  wrap(backend, 'recordAndSubmit', 'record', timed, on);
  wrap(backend, 'makeUniforms', 'uniforms', timed, on);
  wrap(backend, 'submitQueue', 'submit', timed, on);
  wrap(backend.device, 'createBindGroup', 'bind group', timed, on);
  wrap(backend, 'makeTensorInfo', 'output tensor', timed, on);
  wrap(backend, 'uploadToGPU', 'buffers (upload/acquire)', timed, on);
  // Dawn's own classes (the `webgpu` package's globals): the layout lookup and the pass calls.
  const globals = (await import('webgpu')).globals as Record<string, { prototype: Record<string, unknown> }>;
  wrap(globals.GPUComputePipeline.prototype, 'getBindGroupLayout', 'bind group layout', timed, on);
  wrap(globals.GPUQueue.prototype, 'writeBuffer', 'queue.writeBuffer', timed, on);
  for (const call of ['setPipeline', 'setBindGroup', 'dispatchWorkgroups']) wrap(globals.GPUComputePassEncoder.prototype, call, `pass.${call}`, timed, on);
  // What each dispatch of the last measured step bound: the floor of a recorded step replays it.
  type Encoded = { pipeline?: unknown; bindGroup?: unknown; size?: number[] };
  let encoded: Encoded[] = [];
  const pass = globals.GPUComputePassEncoder.prototype as Record<string, (...args: unknown[]) => unknown>;
  const [setPipeline, setBindGroup, dispatch] = [pass.setPipeline, pass.setBindGroup, pass.dispatchWorkgroups];
  pass.setPipeline = function (this: unknown, pipeline: unknown) {
    if (measuring) encoded.push({ pipeline });
    return setPipeline.call(this, pipeline);
  };
  pass.setBindGroup = function (this: unknown, ...args: unknown[]) {
    if (measuring) encoded[encoded.length - 1].bindGroup = args[1];
    return setBindGroup.apply(this, args);
  };
  pass.dispatchWorkgroups = function (this: unknown, ...args: unknown[]) {
    if (measuring) encoded[encoded.length - 1].size = args as number[];
    return dispatch.apply(this, args);
  };

  const shape = { ...PRESETS['tiny-qwen2'], num_hidden_layers: layers, hidden_size: hidden, intermediate_size: 2 * hidden, vocab_size: 1000 };
  const config = parseHfConfig(shape);
  const model = HfDecoder.fromHfTensors(config, randomHfTensors(shape, 1), { lora: { rank: 8, alpha: 16, targetModules: resolveTargetModules('all-linear') }, seed: 1, contextLength: 256 });
  for (const [name, v] of model.namedVariables()) if (name.endsWith('lora_B')) v.assign(tf.randomNormal(v.shape, 0, 0.1, 'float32', 3));
  // A prompt cache of random keys and values: host time does not depend on what they hold.
  const promptColumns = 12;
  const promptCache = Array.from({ length: layers }, (_, i) => ({
    k: tf.randomNormal([rows, config.nKvHeads, promptColumns, config.headDim], 0, 1, 'float32', 10 + i) as tf.Tensor4D,
    v: tf.randomNormal([rows, config.nKvHeads, promptColumns, config.headDim], 0, 1, 'float32', 100 + i) as tf.Tensor4D,
  }));
  const spec = { promptCache, columns: steps, bias: new Float32Array(rows * (promptColumns + steps)) };
  /** One rollout of `steps` steps, each recorded with the device idle (its previous step read back). */
  const rollout = async (measure: boolean) => {
    const session = model.startDecoding(rows, spec);
    if (!session) throw new Error('The model did not decode on the device: this bench needs the WebGPU decoding kernels');
    const perStep: Array<Record<string, number>> = [];
    let checksum = 0;
    // The first step's ids from the CPU, [rows, 2] as the sampling writes them; then the sampled.
    let ids = tf.tensor2d(Float32Array.from({ length: 2 * rows }, (_, i) => (i % 2 === 0 ? 1 + ((i * 37) % 900) : 0)), [rows, 2]);
    for (let step = 0; step < steps; step++) {
      const positions = tf.tensor1d(new Int32Array(rows).fill(promptColumns + step), 'int32');
      const draws = tf.tensor1d(Float32Array.from({ length: rows }, (_, b) => (b * 0.37 + step * 0.11) % 1));
      await tf.ready();
      for (const key of Object.keys(timed)) delete timed[key];
      encoded = [];
      measuring = measure;
      const counter = startGpuCounter();
      const t0 = performance.now();
      const logits = tf.tidy(() => session.step(ids, positions));
      const sampled = tf.tidy(() => session.sample(logits, draws, 1, false));
      const ms = performance.now() - t0;
      measuring = false;
      const counts = counter.read();
      session.flush();
      const data = (await logits.data()) as Float32Array;
      checksum += data.reduce((a, b) => a + b, 0) + ((await sampled.data()) as Float32Array).reduce((a, b) => a + b, 0);
      tf.dispose([ids, positions, draws, logits]);
      ids = sampled;
      perStep.push({ step: ms, ...Object.fromEntries(Object.entries(timed).map(([k, t]) => [k, t.ms])), dispatches: timed['tfjs run']?.calls ?? 0, 'all dispatches': counts.dispatches, replayed: counts.recordedDispatches, submits: timed.submit?.calls ?? 0 });
    }
    ids.dispose();
    session.dispose();
    return { perStep, checksum };
  };
  /** The measured rollout of one path: its medians a step, its wall time and checksum of logits and samples. */
  const measure = async (recorded: boolean) => {
    setRecordedDecoding(recorded);
    await rollout(false);
    const wall0 = performance.now();
    const { perStep, checksum } = await rollout(true);
    const wallMs = performance.now() - wall0;
    // The first step is tfjs's on both paths (the recorded one captures it): medians of the rest.
    const median = (key: string) => {
      const values = perStep.slice(1).map((s) => s[key] ?? 0).sort((a, b) => a - b);
      return values[Math.floor(values.length / 2)];
    };
    return { median, wallMs, checksum, measured: perStep.length - 1 };
  };
  const header = (path: string, measured: number) =>
    `decoding step host time, ${path} (median of ${measured} steps, each recorded with the device idle): Qwen2-shaped, ${layers} layers, hidden ${hidden}, ${rows} rows, LoRA rank 8; TURNLAB_DECODE_SUBMIT_EVERY=${process.env.TURNLAB_DECODE_SUBMIT_EVERY ?? '(unset: tfjs submits every 15 dispatches)'}`;
  const perDispatch = (ms: number, dispatches: number) => `${ms.toFixed(2)} ms   ${((1000 * ms) / Math.max(1, dispatches)).toFixed(1)} us a dispatch`;
  const lines: string[] = [];
  let tfjsStep: { ms: number; dispatches: number; checksum: number } | null = null;
  if (paths.includes('tfjs')) {
    const { median, wallMs, checksum, measured } = await measure(false);
    // The floor of a recorded step: the last step's pipelines and bind groups (made once, as a
    // recorded step makes them per rollout) encoded again, plus one uniform write a step;
    // encoded and finished, never submitted (the buffers are tfjs's pool's again by now).
    const device = backend.device as unknown as {
      createCommandEncoder(): { beginComputePass(): Record<string, (...args: unknown[]) => unknown>; finish(): unknown };
      queue: { writeBuffer(buffer: unknown, offset: number, data: ArrayBufferView): void };
      createBuffer(d: { size: number; usage: number }): { destroy(): void };
    };
    const stepUniform = device.createBuffer({ size: 256, usage: 0x40 | 0x08 /* UNIFORM | COPY_DST */ });
    const replays: number[] = [];
    for (let r = 0; r < 20; r++) {
      const t0 = performance.now();
      device.queue.writeBuffer(stepUniform, 0, new Int32Array([r, 0, 0, 0]));
      const encoder = device.createCommandEncoder();
      const replay = encoder.beginComputePass();
      for (const e of encoded) {
        setPipeline.call(replay, e.pipeline);
        setBindGroup.call(replay, 0, e.bindGroup);
        dispatch.apply(replay, e.size ?? [1, 1, 1]);
      }
      replay.end();
      encoder.finish();
      replays.push(performance.now() - t0);
    }
    stepUniform.destroy();
    replays.sort((a, b) => a - b);
    const replayMs = replays[replays.length >> 1];
    const dispatches = median('dispatches');
    const line = (part: string, ms: number) => `  ${part.padEnd(26)} ${perDispatch(ms, dispatches)}`;
    const parts = ['step', 'tfjs run', 'record', 'uniforms', 'queue.writeBuffer', 'bind group layout', 'bind group', 'pass.setPipeline', 'pass.setBindGroup', 'pass.dispatchWorkgroups', 'submit', 'output tensor', 'buffers (upload/acquire)'];
    lines.push(
      header('every step through tfjs (TURNLAB_DECODE_RECORDED=0)', measured),
      `  dispatches a step ${dispatches}, submits a step ${median('submits')}`,
      ...parts.map((part) => line(part === 'step' ? 'step (host, recording)' : part, median(part))),
      line('outside tfjs run', median('step') - median('tfjs run')),
      line('tfjs run outside record', median('tfjs run') - median('record')),
      `  floor of a recorded step: ${encoded.length} dispatches encoded from bind groups made once, one uniform write: ${perDispatch(replayMs, encoded.length)}`,
      `  rollout wall (with device work, reads) ${(wallMs / 1000).toFixed(2)} s for ${steps} steps`,
      `  logits and samples checksum ${checksum.toPrecision(12)}`,
    );
    tfjsStep = { ms: median('step'), dispatches, checksum };
  }
  if (paths.includes('recorded')) {
    const { median, wallMs, checksum, measured } = await measure(true);
    const dispatches = median('all dispatches');
    const line = (part: string, ms: number) => `  ${part.padEnd(26)} ${perDispatch(ms, dispatches)}`;
    const parts = ['queue.writeBuffer', 'pass.setPipeline', 'pass.setBindGroup', 'pass.dispatchWorkgroups', 'submit', 'tfjs run'];
    lines.push(
      header('recorded (the first step through tfjs, the rest replayed: webgpu/step-recorder.ts)', measured),
      `  dispatches a step ${dispatches}, of them replayed ${median('replayed')}, submits a step ${median('submits')}`,
      line('step (host, recording)', median('step')),
      ...parts.map((part) => line(part, median(part))),
      line('rest (copies, JavaScript)', median('step') - parts.reduce((sum, part) => sum + median(part), 0)),
      `  rollout wall (with device work, reads) ${(wallMs / 1000).toFixed(2)} s for ${steps} steps`,
      `  logits and samples checksum ${checksum.toPrecision(12)}`,
    );
    if (tfjsStep) {
      const ratio = tfjsStep.ms / Math.max(1e-9, median('step'));
      lines.push(
        `recorded step against tfjs's: ${((1000 * median('step')) / Math.max(1, dispatches)).toFixed(1)} against ${((1000 * tfjsStep.ms) / Math.max(1, tfjsStep.dispatches)).toFixed(1)} us a dispatch of host time (${ratio.toFixed(0)}x less), ${rows} rows; logits and samples ${checksum === tfjsStep.checksum ? 'identical' : 'DIFFERENT'} (checksums ${checksum.toPrecision(12)}, ${tfjsStep.checksum.toPrecision(12)})`,
      );
    }
  }
  console.log(lines.join('\n'));
  model.dispose();
  await releaseBackend();
}

await main();
