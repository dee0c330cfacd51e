/**
 * A frozen weight matrix kept 16-bit (bfloat16 or IEEE half, as a checkpoint stores it): tfjs has
 * no 16-bit dtype, so the values sit two to an int32 in one tensor on the active backend, and
 * TurnLab's own products (half-ops.ts) widen them to float32 as they read them. Qwen2.5-0.5B's
 * base then takes 1 GB of wasm's 4 GB heap instead of 2, and no float32 copy is ever made (tfjs's
 * XNNPACK products pack a copy of each float32 weight beside it).
 *
 * The layout is Hugging Face's, [out, in] (a [vocab, width] embedding table): a row is one
 * output's weights, contiguous, which is what a product of many inputs and a gather read.
 */
import * as tf from '@tensorflow/tfjs';

export type HalfFormat = 'BF16' | 'F16';

/** The backends with 16-bit products (a wasm kernel; plain JavaScript on cpu). */
export function halfBackend(backend: string = tf.getBackend()): boolean {
  return backend === 'wasm' || backend === 'cpu';
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
    /** int32 [rows * cols / 2]: value j of row i is the 16-bit half (little-endian) at i * cols + j. */
    readonly bits: tf.Tensor1D,
    readonly rows: number,
    readonly cols: number,
    readonly format: HalfFormat,
  ) {}

  /** `values` holds rows x cols 16-bit patterns, row-major; they are copied to the backend. */
  static fromBits(values: Uint16Array, rows: number, cols: number, format: HalfFormat): HalfMatrix {
    if (values.length !== rows * cols) throw new Error(`${values.length} 16-bit values for a [${rows}, ${cols}] matrix`);
    if (!halfWidthOk(cols)) throw new Error(`A 16-bit matrix needs a width that is a multiple of 8, not ${cols}`);
    // An Int32Array view needs a 4-byte aligned start; a fresh copy has one.
    const aligned = values.byteOffset % 4 === 0 ? values : values.slice();
    const packed = new Int32Array(aligned.buffer, aligned.byteOffset, values.length / 2);
    return new HalfMatrix(tf.keep(tf.tensor1d(packed, 'int32')), rows, cols, format);
  }

  get size(): number {
    return this.rows * this.cols;
  }

  /** Bytes held on the backend. */
  get bytes(): number {
    return 2 * this.size;
  }

  /** The 16-bit patterns, read back from the backend. */
  async halves(): Promise<Uint16Array> {
    const packed = (await this.bits.data()) as Int32Array;
    return new Uint16Array(packed.buffer, packed.byteOffset, this.size);
  }

  /** The values as float32 (exact), [rows, cols] row-major. */
  async widen(): Promise<Float32Array> {
    return widenHalves(await this.halves(), this.format);
  }

  dispose(): void {
    this.bits.dispose();
  }
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
