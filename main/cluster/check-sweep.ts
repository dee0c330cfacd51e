import type { SweepCheckDto } from '../../preload/contract';
import { parseGridAxis, skippedLine } from '../../preload/sweep-plan';
import { acceptedSettings } from './sweep-configs';

/**
 * What startSweep would make of a grid over a config, without starting anything: the New run form
 * shows it under the grid as it is typed, so a combination no config accepts is said before Start,
 * not in the sweep's line after it. The same reading as startSweep's (the form's grid words), so
 * the two cannot disagree.
 */
export async function checkSweep(configPath: string, overrides: readonly string[], grid: readonly string[]): Promise<SweepCheckDto> {
  try {
    const axes = grid.map((line) => parseGridAxis(line, 'form'));
    const { settings, skipped } = await acceptedSettings(configPath, overrides, axes, 'form');
    return { settings: settings.length, leftOut: skipped.map((one) => skippedLine(axes, one)), problem: null };
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    return { settings: 0, leftOut: [], problem: error.message.replace(/\n/g, '; ') };
  }
}
