/**
 * A frozen weight matrix kept 16-bit (bfloat16 or IEEE half, as a checkpoint stores it): tfjs has
 * no 16-bit dtype, so the values sit two to an int32 in one tensor on the active backend, and
 * TurnLab's own products (half-ops.ts) widen them to float32 as they read them. Qwen2.5-0.5B's
 * base then takes 1 GB of wasm's 4 GB heap instead of 2, and no float32 copy is ever made (tfjs's
 * XNNPACK products pack a copy of each float32 weight beside it).
 *
 * On wasm and cpu the layout is Hugging Face's, [out, in] (a [vocab, width] embedding table): a
 * row is one output's weights, contiguous, which is what wasm's products and gather read. On
 * WebGPU it is [in, out] (`inMajor`; a [width, vocab] table): adjacent GPU threads compute
 * adjacent outputs and so read adjacent words (webgpu/half-products.ts). `rows` and `cols` are
 * the [out, in] shape either way.
 */
import * as tf from '@tensorflow/tfjs';

export type HalfFormat = 'BF16' | 'F16';

/** The backends with 16-bit products (a wasm kernel; plain JavaScript on cpu; WGSL kernels on WebGPU). */
export function halfBackend(backend: string = tf.getBackend()): boolean {
  return backend === 'wasm' || backend === 'cpu' || backend === 'webgpu';
}

/** Whether a matrix made on this backend is stored [in, out] (see above). */
function inMajorOn(backend: string): boolean {
  return backend === 'webgpu';
}

/** The products read eight values at a time along a row: a width that is not a multiple stays float32. */
export function halfWidthOk(cols: number): boolean {
  return cols > 0 && cols % 8 === 0;
}

/**
 * Whether the products can hold these rows of `cols` 16-bit values: a width that is a multiple
 * of 8, and for IEEE half no infinity or NaN (the kernel's widening leaves them out; no trained
 * weight holds one).
 */
export function kernelHolds(values: Uint16Array, cols: number, format: HalfFormat): boolean {
  if (!halfWidthOk(cols)) return false;
  if (format === 'F16') for (let i = 0; i < values.length; i++) if ((values[i] & 0x7c00) === 0x7c00) return false;
  return true;
}

export class HalfMatrix {
  private constructor(
    /**
     * int32 [rows * cols / 2], two 16-bit values a word (little-endian: the even one in the lower
     * half): value j of row i at i * cols + j, or, inMajor, at j * rows + i.
     */
    readonly bits: tf.Tensor1D,
    readonly rows: number,
    readonly cols: number,
    readonly format: HalfFormat,
    /** Stored [in, out] (cols x rows), as WebGPU's kernels read it. */
    readonly inMajor: boolean,
    /** The backend it was made on (its products read only its own layout). */
    readonly madeFor: string,
  ) {}

  /**
   * `values` holds rows x cols 16-bit patterns, row-major ([out, in]); they are copied to the
   * active backend in its layout.
   */
  static fromBits(values: Uint16Array, rows: number, cols: number, format: HalfFormat): HalfMatrix {
    if (values.length !== rows * cols) throw new Error(`${values.length} 16-bit values for a [${rows}, ${cols}] matrix`);
    if (!halfWidthOk(cols)) throw new Error(`A 16-bit matrix needs a width that is a multiple of 8, not ${cols}`);
    const backend = tf.getBackend();
    const inMajor = inMajorOn(backend);
    // An Int32Array view needs a 4-byte aligned start; a fresh copy has one.
    const stored = inMajor ? transposeHalves(values, rows, cols) : values.byteOffset % 4 === 0 ? values : values.slice();
    const packed = new Int32Array(stored.buffer, stored.byteOffset, values.length / 2);
    return new HalfMatrix(tf.keep(tf.tensor1d(packed, 'int32')), rows, cols, format, inMajor, backend);
  }

  get size(): number {
    return this.rows * this.cols;
  }

  /** Bytes held on the backend. */
  get bytes(): number {
    return 2 * this.size;
  }

  /** The 16-bit patterns, read back from the backend, [rows, cols] row-major. */
  async halves(): Promise<Uint16Array> {
    const packed = (await this.bits.data()) as Int32Array;
    const halves = new Uint16Array(packed.buffer, packed.byteOffset, this.size);
    return this.inMajor ? transposeHalves(halves, this.cols, this.rows) : halves;
  }

  /** The values as float32 (exact), [rows, cols] row-major. */
  async widen(): Promise<Float32Array> {
    return widenHalves(await this.halves(), this.format);
  }

  dispose(): void {
    this.bits.dispose();
  }
}

/** The [cols, rows] transpose of a row-major [rows, cols] matrix of 16-bit values, in blocks that stay in cache. */
export function transposeHalves(values: Uint16Array, rows: number, cols: number): Uint16Array {
  const out = new Uint16Array(rows * cols);
  const block = 64;
  for (let r0 = 0; r0 < rows; r0 += block) {
    const r1 = Math.min(rows, r0 + block);
    for (let c0 = 0; c0 < cols; c0 += block) {
      const c1 = Math.min(cols, c0 + block);
      for (let r = r0; r < r1; r++) for (let c = c0; c < c1; c++) out[c * rows + r] = values[r * cols + c];
    }
  }
  return out;
}

/** IEEE half to float32, exactly (subnormals, infinities and NaN included). */
export function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const mantissa = h & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 31) return mantissa ? NaN : sign * Infinity;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

let halfTable: Float32Array | null = null;

/** float32 of every IEEE half bit pattern (256 KiB, made once). */
export function halfValues(): Float32Array {
  if (!halfTable) {
    halfTable = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) halfTable[h] = halfToFloat(h);
  }
  return halfTable;
}

/** 16-bit patterns to float32; exact (bfloat16 is the upper half of a float32). */
export function widenHalves(halves: Uint16Array, format: HalfFormat): Float32Array {
  const out = new Float32Array(halves.length);
  if (format === 'BF16') {
    const bits = new Uint32Array(out.buffer);
    for (let i = 0; i < halves.length; i++) bits[i] = halves[i] << 16;
  } else {
    const table = halfValues();
    for (let i = 0; i < halves.length; i++) out[i] = table[halves[i]];
  }
  return out;
}
