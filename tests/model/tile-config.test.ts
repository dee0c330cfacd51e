// The decoding kernel's tiling: the defaults respect the device's limits, and TURNLAB_DECODE_TILE
// overrides are applied per layer and refused with a one-line reason when the kernel cannot run them.
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, overrideFor, parseTileOverrides, sharedFloats, tileConfig, tileProblem, type TileShape } from '../../trainer-core/model/webgpu/tile-config';

const qkv: TileShape = { rows: 64, cols: 1152, inner: 896, loraCols: 24, gated: false, form: 'qkv' };
const down: TileShape = { rows: 64, cols: 896, inner: 4864, loraCols: 8, gated: false, form: 'single' };
const o: TileShape = { rows: 64, cols: 896, inner: 896, loraCols: 8, gated: false, form: 'single' };
const head: TileShape = { rows: 64, cols: 151936, inner: 896, loraCols: 0, gated: false, form: 'single' };
const gated: TileShape = { rows: 64, cols: 4864, inner: 896, loraCols: 16, gated: true, form: 'gated' };

describe('decoding kernel tiling', () => {
  it('fits every default in the limits it is given, with longer slices where the device has more workgroup memory', () => {
    const big = { sharedFloats: 12288, threads: 1024 };
    for (const shape of [qkv, down, o, head, gated, { ...qkv, rows: 1 }, { ...gated, rows: 3 }])
      for (const limits of [DEFAULT_LIMITS, big]) {
        const c = tileConfig(shape, limits, {});
        expect(tileProblem(c, shape, limits)).toBeNull();
        expect(sharedFloats(c, shape)).toBeLessThanOrEqual(limits.sharedFloats);
      }
    // Blocks of 64 rows (16 row threads) fit a slice of 32 inputs in 16 KiB, 64 in 48 KiB.
    expect(tileConfig(qkv, DEFAULT_LIMITS, { rt: 16 }).bk).toBe(32);
    expect(tileConfig(qkv, big, { rt: 16 }).bk).toBe(64);
    // By default a block has at most 16 rows (4 row threads of 4).
    expect(tileConfig(qkv, DEFAULT_LIMITS, {})).toMatchObject({ tm: 4, rt: 4, ks: 8, bk: 64 });
  });

  it('applies overrides by layer: every layer, then the form, then o or down by shape', () => {
    const overrides = parseTileOverrides('tm=2,un=2; qkv:rt=8,ks=2 ;down:ks=8,bk=128,stage=0');
    expect(overrideFor(qkv, overrides)).toEqual({ tm: 2, un: 2, rt: 8, ks: 2 });
    expect(overrideFor(down, overrides)).toEqual({ tm: 2, un: 2, ks: 8, bk: 128, stage: 0 });
    expect(overrideFor(o, overrides)).toEqual({ tm: 2, un: 2 });
    expect(overrideFor(head, overrides)).toEqual({ tm: 2, un: 2 });
    const c = tileConfig(down, DEFAULT_LIMITS, overrideFor(down, overrides));
    // ks fixed at 8: 4 row threads (the default's most), each with a column quad besides its LoRA threads.
    expect(c).toMatchObject({ tm: 2, rt: 4, ct: 6, ks: 8, bk: 128, un: 2, stage: false });
    // A larger fixed ks: the row threads halve until each has a column quad besides its LoRA threads.
    expect(tileConfig(down, DEFAULT_LIMITS, { ks: 32 })).toMatchObject({ rt: 2, ct: 2, ks: 32 });
  });

  it('refuses unknown keys and layers naming the closest, and tilings the kernel cannot run', () => {
    expect(() => parseTileOverrides('tn=4')).toThrow(/unknown key "tn" \(did you mean "tm"/);
    expect(() => parseTileOverrides('qvk:tm=4')).toThrow(/unknown layer "qvk" \(did you mean "qkv"/);
    expect(() => parseTileOverrides('stage=2')).toThrow(/stage=2 must be 0 or 1/);
    expect(() => parseTileOverrides('bk=-1')).toThrow(/bk=-1 must be a positive integer/);
    expect(() => tileConfig(qkv, DEFAULT_LIMITS, { bk: 48 })).toThrow(/powers of two .*TURNLAB_DECODE_TILE/);
    expect(() => tileConfig(qkv, DEFAULT_LIMITS, { rt: 16, ks: 4, ct: 8 })).toThrow(/exceeds th/);
    expect(() => tileConfig(qkv, DEFAULT_LIMITS, { rt: 16, ks: 1, ct: 2, bk: 256 })).toThrow(/workgroup memory/);
  });
});
