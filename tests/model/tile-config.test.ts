// The decoding kernel's tiling: the defaults respect the device's limits, and TURNLAB_DECODE_TILE
// overrides are applied per layer and refused with a one-line reason when the kernel cannot run them.
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, describeTile, layerKind, overrideFor, parseTileOverrides, sharedFloats, tileConfig, tileProblem, type TileShape } from '../../trainer-core/model/webgpu/tile-config';

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
    // By default a block of q|k|v has at most 16 rows (4 row threads of 4).
    expect(tileConfig(qkv, DEFAULT_LIMITS, {})).toMatchObject({ tm: 4, rt: 4, ks: 8, bk: 64 });
  });

  it("takes the H200 sweep's best tiling per layer as the default at 64 rows", () => {
    const tile = (shape: TileShape) => describeTile(tileConfig(shape, DEFAULT_LIMITS, {}));
    expect([qkv, o, gated, down, head].map(layerKind)).toEqual(['qkv', 'o', 'gated', 'down', 'head']);
    expect(tile(qkv)).toBe('tm=4,rt=4,ct=2,ks=8,bk=64,th=256,un=4,stage=1');
    expect(tile(o)).toBe('tm=4,rt=4,ct=6,ks=8,bk=64,th=256,un=4,stage=1');
    expect(tile(gated)).toBe('tm=4,rt=1,ct=30,ks=2,bk=64,th=64,un=4,stage=1');
    expect(tile(down)).toBe('tm=4,rt=1,ct=6,ks=32,bk=128,th=256,un=4,stage=1');
    // The LM head keeps 16-row blocks of 64 columns.
    expect(tile(head)).toBe('tm=4,rt=4,ct=64,ks=1,bk=64,th=256,un=4,stage=1');
  });

  it('gives every layer a tiling the kernel can run at any row count and LoRA rank a session allows', () => {
    for (const rows of [1, 2, 3, 4, 5, 15, 16, 17, 33, 64, 70, 128, 256])
      for (const rank of [0, 1, 8, 16, 42])
        for (const base of [qkv, o, gated, down, head]) {
          const segments = base.form === 'qkv' ? 3 : base.form === 'gated' ? 2 : base === head ? 0 : 1;
          const shape = { ...base, rows, loraCols: segments * rank };
          for (const limits of [DEFAULT_LIMITS, { sharedFloats: 8192, threads: 1024 }]) {
            const c = tileConfig(shape, limits, {});
            expect(tileProblem(c, shape, limits), `${rows} rows, rank ${rank}, ${layerKind(shape)}`).toBeNull();
          }
        }
  });

  it('applies overrides by layer: every layer, then the form, then o, down or head by shape', () => {
    const overrides = parseTileOverrides('tm=2,un=2; qkv:rt=8,ks=2 ;down:ks=8,bk=128,stage=0');
    expect(overrideFor(qkv, overrides)).toEqual({ tm: 2, un: 2, rt: 8, ks: 2 });
    expect(overrideFor(down, overrides)).toEqual({ tm: 2, un: 2, ks: 8, bk: 128, stage: 0 });
    expect(overrideFor(o, overrides)).toEqual({ tm: 2, un: 2 });
    expect(overrideFor(head, overrides)).toEqual({ tm: 2, un: 2 });
    // The LM head has its own entry (a sweep's winner for it applied end to end), o's does not reach it.
    const withHead = parseTileOverrides('o:rt=2;head:rt=8,ks=2');
    expect(overrideFor(head, withHead)).toEqual({ rt: 8, ks: 2 });
    expect(overrideFor(o, withHead)).toEqual({ rt: 2 });
    expect(tileConfig(head, DEFAULT_LIMITS, overrideFor(head, withHead))).toMatchObject({ rt: 8, ks: 2 });
    const c = tileConfig(down, DEFAULT_LIMITS, overrideFor(down, overrides));
    // ks fixed at 8: down's blocks of 4 rows (2 row threads of 2), the rest of the threads column quads.
    expect(c).toMatchObject({ tm: 2, rt: 2, ct: 14, ks: 8, bk: 128, un: 2, stage: false });
    // A larger fixed ks: the row threads halve until each has a column quad besides its LoRA threads.
    expect(tileConfig(o, DEFAULT_LIMITS, { ks: 32 })).toMatchObject({ rt: 2, ct: 2, ks: 32 });
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
