/**
 * Picks the tfjs compute backend for a run and says why. `auto` walks the list from fastest to
 * slowest and records, for every backend it passes over, the reason it was not used, so a run
 * never silently lands on a slow path (the top complaint of tfjs-node-gpu users is a CPU
 * fallback that looks like a GPU run).
 */
import { createRequire } from 'node:module';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import { dawnFlags } from './dawn-flags';
import { installWasmKernels } from './model/wasm-kernels';
import { installWebgpuKernels } from './model/webgpu-kernels';
import { installFusedWebgpuKernels } from './model/webgpu/install';

export const BACKEND_REQUESTS = ['auto', 'tensorflow', 'webgpu', 'wasm', 'cpu'] as const;
export type BackendRequest = (typeof BACKEND_REQUESTS)[number];
export type BackendName = Exclude<BackendRequest, 'auto'>;

export interface BackendChoice {
  /** The backend family that runs: `tensorflow` covers tfjs-node and tfjs-node-gpu. */
  name: BackendName;
  /** The tfjs backend id passed to `tf.setBackend` (`tensorflow`, `webgpu`, `wasm`, `cpu`). */
  tfBackend: string;
  /** What computes, in words: a GPU's name, "CPU (libtensorflow)", "llvmpipe (software Vulkan)". */
  device: string;
  /** One entry per backend tried before the chosen one: why it was not used. */
  reasons: string[];
}

interface Attempt {
  ok: boolean;
  tfBackend?: string;
  device?: string;
  why?: string;
  /** Caveats worth reporting even though the backend runs (a GPU package running on CPU). */
  notes?: string[];
}

/** `auto` is true when the caller lets us pass over slow paths that are not what they seem. */
type Probe = (auto: boolean) => Promise<Attempt>;

const require = createRequire(import.meta.url);

let webgpuDevice: { destroy(): void } | null = null;
/** The priority tfjs-backend-webgpu registers itself with. */
const WEBGPU_PRIORITY = 3;

/** A backend that was asked for but cannot start here (not installed, no driver): the user picks another. */
export class BackendError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackendError';
  }
}

/**
 * Makes `requested` the active tfjs backend. Throws when an explicitly requested backend cannot
 * start (with the reason); `auto` falls through to the next candidate and records why.
 * `log` receives one line naming the backend in use and why each earlier candidate was skipped.
 */
export async function selectBackend(
  requested: BackendRequest,
  log: (line: string) => void = () => {},
): Promise<BackendChoice> {
  if (!(BACKEND_REQUESTS as readonly string[]).includes(requested)) {
    throw new BackendError(`Unknown backend "${String(requested)}": use one of ${BACKEND_REQUESTS.join(', ')}`);
  }
  const order: BackendName[] = requested === 'auto' ? ['tensorflow', 'webgpu', 'wasm', 'cpu'] : [requested];
  const reasons: string[] = [];
  for (const name of order) {
    let attempt: Attempt;
    try {
      attempt = await PROBES[name](requested === 'auto');
    } catch (error) {
      attempt = { ok: false, why: errorText(error) };
    }
    if (attempt.ok && attempt.tfBackend) {
      reasons.push(...(attempt.notes ?? []));
      const choice: BackendChoice = { name, tfBackend: attempt.tfBackend, device: attempt.device ?? 'unknown', reasons };
      log(describeBackendChoice(choice));
      return choice;
    }
    reasons.push(`${name}: ${attempt.why ?? 'unavailable'}`);
    if (requested !== 'auto') {
      throw new BackendError(`Backend "${name}" cannot start: ${attempt.why ?? 'unavailable'}. Use backend: auto to fall back.`);
    }
  }
  throw new BackendError(`No tfjs backend could start (${reasons.join('; ')})`);
}

/** Whether one backend can start here: its device when it can, else the reason it cannot. */
export interface BackendAvailability {
  name: BackendName;
  available: boolean;
  device?: string;
  reason?: string;
}

/**
 * Tries every backend as an explicit request would (a software WebGPU adapter counts: asked for
 * by name it runs; WebGPU is asked of a child process, so Dawn's warnings stay there), so a form offers only those that load and says why the others do not.
 * Leaves the last probed backend active: run it in a process of its own.
 */
export async function probeBackends(): Promise<BackendAvailability[]> {
  const results: BackendAvailability[] = [];
  for (const name of ['tensorflow', 'webgpu', 'wasm', 'cpu'] as const) {
    let attempt: Attempt;
    try {
      attempt = name === 'webgpu' ? listWebgpu() : await PROBES[name](false);
    } catch (error) {
      attempt = { ok: false, why: errorText(error) };
    }
    results.push(attempt.ok ? { name, available: true, device: attempt.device ?? 'unknown' } : { name, available: false, reason: attempt.why ?? 'unavailable' });
  }
  await releaseBackend();
  return results;
}

/** The one line training prints at start. */
export function describeBackendChoice(choice: BackendChoice): string {
  const skipped = choice.reasons.length > 0 ? `; not used: ${choice.reasons.join('; ')}` : '';
  return `backend: ${choice.name} on ${choice.device}${skipped}`;
}

/**
 * Lets the process exit: a live Dawn device keeps Node's event loop alive, so CLIs and tests that
 * used WebGPU call this (or process.exit) when done. Harmless for the other backends.
 */
export async function releaseBackend(): Promise<void> {
  if (!webgpuDevice) return;
  const device = webgpuDevice;
  webgpuDevice = null;
  if (tf.findBackend('webgpu')) {
    // removeBackend also drops the factory that tfjs-backend-webgpu registered on import (once
    // per process): put it back so a later selectBackend can open a new device.
    const factory = tf.findBackendFactory('webgpu');
    tf.removeBackend('webgpu');
    if (factory) tf.registerBackend('webgpu', factory, WEBGPU_PRIORITY);
  }
  device.destroy();
}

const PROBES: Record<BackendName, Probe> = {
  tensorflow: probeTensorflow,
  webgpu: probeWebgpu,
  wasm: probeWasm,
  cpu: async () => {
    await tf.setBackend('cpu');
    await tf.ready();
    // Its first-use banner tells users to install tfjs-node; selectBackend already says that.
    (tf.backend() as unknown as { firstUse?: boolean }).firstUse = false;
    return { ok: true, tfBackend: 'cpu', device: 'CPU (pure JavaScript)' };
  },
};

interface TfNodeBackend {
  isGPUPackage?: boolean;
  isUsingGpuDevice?: boolean;
}

async function probeTensorflow(): Promise<Attempt> {
  const gpuPackage = '@tensorflow/tfjs-node-gpu';
  const cpuPackage = '@tensorflow/tfjs-node';
  let gpuWhy: string;
  if (isInstalled(gpuPackage)) {
    try {
      await import(/* @vite-ignore */ gpuPackage);
      await tf.setBackend('tensorflow');
      const backend = tf.backend() as unknown as TfNodeBackend;
      if (backend.isGPUPackage && backend.isUsingGpuDevice) {
        return { ok: true, tfBackend: 'tensorflow', device: 'GPU (CUDA, tfjs-node-gpu)' };
      }
      // The GPU package falls back to CPU quietly when CUDA 11.2 / cuDNN 8.1 do not load.
      const why = `${gpuPackage} loaded but found no usable CUDA GPU (it needs CUDA 11.2 and cuDNN 8.1)`;
      return { ok: true, tfBackend: 'tensorflow', device: 'CPU (libtensorflow via tfjs-node-gpu)', notes: [`GPU: ${why}`] };
    } catch (error) {
      gpuWhy = `${gpuPackage} failed to load: ${errorText(error)}`;
    }
  } else {
    gpuWhy = `${gpuPackage} not installed (npm install ${gpuPackage} to use the GPU)`;
  }
  if (!isInstalled(cpuPackage)) {
    return { ok: false, why: `${gpuWhy}; ${cpuPackage} not installed (npm install ${cpuPackage} for native CPU)` };
  }
  try {
    await import(/* @vite-ignore */ cpuPackage);
    await tf.setBackend('tensorflow');
    return { ok: true, tfBackend: 'tensorflow', device: 'CPU (libtensorflow via tfjs-node)', notes: [`GPU: ${gpuWhy}`] };
  } catch (error) {
    return { ok: false, why: `${gpuWhy}; ${cpuPackage} failed to load: ${errorText(error)}` };
  }
}

interface GpuLike {
  requestAdapter(): Promise<AdapterLike | null>;
}
interface AdapterLike {
  info?: { vendor?: string; architecture?: string; device?: string; description?: string; isFallbackAdapter?: boolean };
}

interface ChildProbe {
  adapter?: AdapterLike['info'] | null;
  error?: string;
}

/**
 * Dawn's adapter, asked for in a child process (webgpu-probe.mjs): Dawn prints its own warnings
 * straight to stderr (on a machine without Vulkan, two lines ending in a path on Dawn's build
 * machine), and only a process of its own keeps them from the user. Dawn loads into this process
 * only when its adapter will run.
 */
function probeAdapterInChild(): ChildProbe {
  const script = fileURLToPath(new URL('./webgpu-probe.mjs', import.meta.url));
  // Inside the desktop app's trainer, execPath is Electron, which runs the script as Node so.
  const result = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
  try {
    return JSON.parse(result.stdout.trim().split('\n').pop() ?? '') as ChildProbe;
  } catch {
    const why = result.error?.message ?? (result.signal ? `killed by ${result.signal}` : `exit code ${result.status}`);
    return { error: `the probe process failed (${why})` };
  }
}

/** What the child found, as an attempt; `null` where the adapter may run. */
function adapterVerdict(probe: ChildProbe, auto: boolean): Attempt | null {
  if (probe.error !== undefined) return { ok: false, why: `the webgpu package (Dawn) failed to load: ${probe.error}` };
  if (!probe.adapter) {
    return {
      ok: false,
      why: 'no WebGPU adapter (no GPU driver; without a GPU install Mesa >= 25 Vulkan drivers, see scripts/install-system-deps.sh)',
    };
  }
  const adapter = { info: probe.adapter };
  if (auto && isSoftwareAdapter(adapter)) {
    // A CPU rasteriser behind WebGPU is several times slower than wasm: not a GPU, so auto moves on.
    return { ok: false, why: `the only adapter is ${adapterName(adapter)}, slower than wasm (request backend: webgpu to use it anyway)` };
  }
  return null;
}

/** For listing: whether WebGPU would start, decided in the child alone. */
function listWebgpu(): Attempt {
  const probe = probeAdapterInChild();
  return adapterVerdict(probe, false) ?? { ok: true, tfBackend: 'webgpu', device: adapterName({ info: probe.adapter ?? {} }) };
}

async function probeWebgpu(auto: boolean): Promise<Attempt> {
  const refused = adapterVerdict(probeAdapterInChild(), auto);
  if (refused) return refused;
  ensureXdgRuntimeDir();
  let gpu: GpuLike;
  try {
    const webgpu = (await import('webgpu')) as unknown as { create(flags: string[]): GpuLike; globals: object };
    Object.assign(globalThis, webgpu.globals);
    // Dawn's own flags for experiments on a GPU machine, e.g. TURNLAB_DAWN_FLAGS=enable-dawn-features=disable_robustness
    // (no bounds clamping of buffer reads: what Dawn's robustness costs a kernel); timestamps unquantized (dawn-flags.ts).
    gpu = webgpu.create(dawnFlags(process.env.TURNLAB_DAWN_FLAGS));
  } catch (error) {
    return { ok: false, why: `the webgpu package (Dawn) failed to load: ${errorText(error)}` };
  }
  const adapter = await gpu.requestAdapter();
  if (!adapter) return { ok: false, why: 'no WebGPU adapter (it went away since the probe)' };
  const device = adapterName(adapter);
  // Node 21+ defines a read-only `navigator` getter; defineProperty replaces it either way.
  const nav = (globalThis as { navigator?: object }).navigator ?? {};
  Object.defineProperty(globalThis, 'navigator', {
    value: Object.assign(Object.create(nav), { gpu }),
    configurable: true,
    writable: true,
  });
  await import('@tensorflow/tfjs-backend-webgpu');
  const ok = await tf.setBackend('webgpu');
  if (!ok) return { ok: false, why: 'tfjs-backend-webgpu could not initialise on the adapter' };
  await tf.ready();
  installWebgpuKernels();
  installFusedWebgpuKernels();
  webgpuDevice = (tf.backend() as unknown as { device: { destroy(): void } }).device;
  return { ok: true, tfBackend: 'webgpu', device };
}

function isSoftwareAdapter(adapter: AdapterLike): boolean {
  const info = adapter.info ?? {};
  return Boolean(info.isFallbackAdapter) || info.architecture === 'software' || /llvmpipe|lavapipe|swiftshader/i.test(info.device ?? '');
}

function adapterName(adapter: AdapterLike): string {
  const info = adapter.info ?? {};
  const name = info.description || info.device || info.vendor || 'WebGPU adapter';
  if (!isSoftwareAdapter(adapter)) {
    // On NVIDIA's Vulkan driver Dawn's description is the driver's version alone
    // ("NVIDIA: 580.159.04 580.159.4.0"); the GPU's model is in `device`.
    return info.device && info.description && info.device !== info.description ? `${info.device} (${info.description})` : name;
  }
  const short = /llvmpipe/i.test(name) ? 'llvmpipe' : /swiftshader/i.test(name) ? 'SwiftShader' : name;
  return `${short} (software Vulkan)`;
}

let wasmPathsSet = false;

async function probeWasm(): Promise<Attempt> {
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  if (!wasmPathsSet) {
    const dist = join(dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json')), 'dist') + '/';
    // Threads would need Web Workers, which Node lacks without extra setup: single-threaded SIMD.
    tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
    wasm.setWasmPaths(dist);
    wasmPathsSet = true;
  }
  const ok = await tf.setBackend('wasm');
  if (!ok) return { ok: false, why: 'the wasm module failed to initialise' };
  await tf.ready();
  installWasmKernels();
  const simd = await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT');
  return { ok: true, tfBackend: 'wasm', device: `CPU (WebAssembly${simd ? ' SIMD' : ''}, 1 thread)` };
}

function isInstalled(pkg: string): boolean {
  try {
    require.resolve(pkg);
    return true;
  } catch {
    return false;
  }
}

/** Dawn's Vulkan loader wants a writable runtime folder; a headless CI shell often has none. */
function ensureXdgRuntimeDir(): void {
  if (!process.env.XDG_RUNTIME_DIR) {
    process.env.XDG_RUNTIME_DIR = mkdtempSync(join(tmpdir(), 'turnlab-xdg-'));
  }
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0];
}
