import { describe, expect, it } from 'vitest';
import { dawnFlags } from '../../trainer-core/dawn-flags';

describe('dawnFlags (TURNLAB_DAWN_FLAGS to webgpu.create)', () => {
  it('turns timestamp quantization off when nothing is set', () => {
    expect(dawnFlags(undefined)).toEqual(['disable-dawn-features=timestamp_quantization']);
    expect(dawnFlags('  ')).toEqual(['disable-dawn-features=timestamp_quantization']);
  });

  it("merges the user's disabled toggles into one flag (Dawn keeps only a key's last value)", () => {
    expect(dawnFlags('disable-dawn-features=lazy_clear_resource_on_first_use enable-dawn-features=disable_robustness disable-dawn-features=a,b')).toEqual([
      'enable-dawn-features=disable_robustness',
      'disable-dawn-features=lazy_clear_resource_on_first_use,a,b,timestamp_quantization',
    ]);
  });

  it('leaves quantization on where the user enables it, and passes other flags through', () => {
    expect(dawnFlags('backend=vulkan enable-dawn-features=timestamp_quantization,allow_unsafe_apis')).toEqual(['backend=vulkan', 'enable-dawn-features=timestamp_quantization,allow_unsafe_apis']);
    expect(dawnFlags('disable-dawn-features=timestamp_quantization enable-dawn-features=x,x')).toEqual(['enable-dawn-features=x', 'disable-dawn-features=timestamp_quantization']);
  });
});
