// A second process that deletes a run as the workbench does (for tests of readers running beside it).
import { deleteRun } from '../../main/services/run-admin';
import { openStore } from '../../main/store/db';

const [dataDir, runId] = process.argv.slice(2);
const store = openStore(dataDir);
try {
  await deleteRun(store, Number(runId), new Set(), { pauseMs: 0 });
  process.stdout.write(`deleted run ${runId}\n`);
} finally {
  store.close();
}
