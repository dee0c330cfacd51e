import { describe, expect, it } from 'vitest';
import { checkpointsDir, dbPath, defaultDataDir, resolveDataDir } from '../../main/paths';

describe('data folder', () => {
  it("matches Electron's userData folder for TurnLab on each platform", () => {
    expect(defaultDataDir('linux', {}, '/home/ada')).toBe('/home/ada/.config/TurnLab');
    expect(defaultDataDir('linux', { XDG_CONFIG_HOME: '/xdg' }, '/home/ada')).toBe('/xdg/TurnLab');
    expect(defaultDataDir('darwin', {}, '/Users/ada')).toBe('/Users/ada/Library/Application Support/TurnLab');
    expect(defaultDataDir('win32', { APPDATA: 'C:/Users/ada/AppData/Roaming' }, 'C:/Users/ada')).toMatch(
      /Roaming[\\/]TurnLab$/,
    );
  });

  it('lets --data-dir win over TURNLAB_DATA_DIR, which wins over the default', () => {
    expect(resolveDataDir('/flag', { TURNLAB_DATA_DIR: '/env' })).toBe('/flag');
    expect(resolveDataDir(undefined, { TURNLAB_DATA_DIR: '/env' })).toBe('/env');
    expect(resolveDataDir(undefined, { XDG_CONFIG_HOME: '/xdg' })).toMatch(/TurnLab$/);
  });

  it('keeps the database and checkpoints in the data folder', () => {
    expect(dbPath('/d')).toBe('/d/turnlab.sqlite');
    expect(checkpointsDir('/d')).toBe('/d/checkpoints');
  });
});
