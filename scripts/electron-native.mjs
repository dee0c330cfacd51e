// Prepares what the desktop app needs before its first start, without touching what the CLI
// and the tests use:
// 1. Electron's binary (npm install skips its download; it is fetched here, once).
// 2. better-sqlite3 compiled for Electron's ABI into .electron-native/, beside, not over,
//    the Node build in node_modules that the CLI and the tests load.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

const electronDir = dirname(require.resolve('electron/package.json'));
const electronVersion = require('electron/package.json').version;

if (!existsSync(join(electronDir, 'path.txt'))) {
  console.log(`Downloading Electron ${electronVersion} (skipped during npm install)...`);
  execFileSync(process.execPath, [join(electronDir, 'install.js')], {
    stdio: 'inherit',
    env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '' },
  });
}

const target = join(root, '.electron-native', `electron-${electronVersion}`, 'better_sqlite3.node');
if (!existsSync(target)) {
  const sqliteDir = dirname(require.resolve('better-sqlite3/package.json'));
  const work = join(root, '.electron-native', 'build-better-sqlite3');
  rmSync(work, { recursive: true, force: true });
  cpSync(sqliteDir, work, { recursive: true, filter: (src) => !src.includes(`${sqliteDir}/build`) });
  const nodeGyp = process.env.npm_config_node_gyp;
  const args = ['rebuild', '--release', '--runtime=electron', `--target=${electronVersion}`, '--dist-url=https://electronjs.org/headers'];
  console.log(`Building better-sqlite3 for Electron ${electronVersion}...`);
  // A user-level `nodedir` (set on some machines for Node addons) would point node-gyp at
  // Node's headers instead of Electron's, so it is cleared for this build.
  const env = { ...process.env, npm_config_nodedir: '' };
  if (nodeGyp) execFileSync(process.execPath, [nodeGyp, ...args], { cwd: work, stdio: 'inherit', env });
  else execFileSync('npx', ['--yes', 'node-gyp', ...args], { cwd: work, stdio: 'inherit', env });
  mkdirSync(dirname(target), { recursive: true });
  cpSync(join(work, 'build', 'Release', 'better_sqlite3.node'), target);
  rmSync(work, { recursive: true, force: true });
}
console.log(`Electron ${electronVersion} ready; its SQLite binding: ${target}`);
