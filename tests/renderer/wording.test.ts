// What the workbench says: a refusal without API method names, a mean ± std as a reader quotes it.
import { describe, expect, it } from 'vitest';
import { withoutApiNames } from '../../renderer/src/api-messages';

describe('refusal messages in the workbench', () => {
  it('drops the method and argument names the server puts first, and Electron\'s IPC wrapper', () => {
    expect(withoutApiNames('exportCheckpointModel: argument 0.out: the output folder must be an absolute path')).toBe('the output folder must be an absolute path');
    expect(withoutApiNames('startRun: arguments must be a JSON array')).toBe('arguments must be a JSON array');
    expect(withoutApiNames("Error invoking remote method 'turnlab:api:getRun': ApiError: unknown run 9999")).toBe('unknown run 9999');
    expect(withoutApiNames("Error invoking remote method 'turnlab:api:startRun': Error: startRun: argument 0.configPath: a config must be a YAML file")).toBe('a config must be a YAML file');
    expect(withoutApiNames('unknown run 9999')).toBe('unknown run 9999');
  });
});

describe('mean ± std in the Compare summary', () => {
  it('gives the std three significant digits and the mean the same decimals', async () => {
    const { formatMeanStd } = await import('../../renderer/src/format');
    expect(formatMeanStd({ mean: 0.5, std: 0.70711 })).toBe('0.500 ± 0.707');
    expect(formatMeanStd({ mean: 1234.5678, std: 123.4 })).toBe('1235 ± 123');
    expect(formatMeanStd({ mean: 0.000123456, std: 0.0000123 })).toBe('0.0001235 ± 0.0000123');
    expect(formatMeanStd({ mean: 0.75, std: 0 })).toBe('0.75 ± 0');
    expect(formatMeanStd(null)).toBe('–');
  });
});

describe('a metric in a table cell', () => {
  it('has four significant digits and no trailing zeros, as turnlab runs --columns prints it', async () => {
    const { formatMetricValue } = await import('../../renderer/src/format');
    expect([0.125, -0.1, 0.03125, 0.58006, 3, 1234567.8, null].map(formatMetricValue)).toEqual(['0.125', '-0.1', '0.03125', '0.5801', '3', '1235000', '-']);
  });
});
