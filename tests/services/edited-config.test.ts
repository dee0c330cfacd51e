// Config text edited in the workbench is checked as a config file is: a YAML syntax error is
// one line naming the line where it is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunAdminError } from '../../main/services/run-admin';
import { writeEditedConfig } from '../../main/services/workbench-files';
import { openStore, type Store } from '../../main/store/db';
import { makeTempDir, type TempDir } from '../helpers/fixtures';

let temp: TempDir;
let store: Store;

beforeAll(() => {
  temp = makeTempDir();
  store = openStore(temp.dir, { create: true });
});

afterAll(() => {
  store.close();
  temp.cleanup();
});

describe('edited config text', () => {
  it('with an unclosed quote is refused at the line where the quote opens, in one line', () => {
    const text = 'trainer:\n  experiment_name: "my run\n  total_training_steps: 3\nagent_proxy:\n  max_turn: 2\n';
    let error: unknown;
    try {
      writeEditedConfig(store, text);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RunAdminError);
    expect((error as Error).message).toBe('the config text line 2: not valid YAML: the " quote at column 20 is never closed; add the closing "');
  });

  it('that is valid is kept as a file', () => {
    expect(writeEditedConfig(store, 'trainer:\n  seed: 3\n')).toMatch(/edited-.*\.yaml$/);
  });
});
