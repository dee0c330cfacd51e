import type { Command } from 'commander';
import { renderTable } from './format';

/**
 * `turnlab backends`: which tfjs backends can start on this machine, and why the others cannot.
 * The workbench runs it (with --json) to offer only those in the New run form.
 */
export function register(program: Command): void {
  program
    .command('backends')
    .description('list the compute backends and whether each can start here (and why not)')
    .option('--json', 'print a JSON array instead of a table')
    .action(async (options: { json?: boolean }) => {
      const { probeBackends } = await import('../../trainer-core/compute');
      const backends = await probeBackends();
      if (options.json) {
        process.stdout.write(`${JSON.stringify(backends)}\n`);
        return;
      }
      const rows = backends.map((b) => [b.name, b.available ? 'yes' : 'no', b.available ? (b.device ?? '') : (b.reason ?? '')]);
      process.stdout.write(`${renderTable(['backend', 'starts', 'device, or why not'], rows)}\n`);
    });
}
