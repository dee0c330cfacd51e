// "Export the table" as JSONL writes its lines as the store's exports do (preload/json-line.ts):
// a run's notes holding a line separator stay one record for Python's splitlines(), and an
// infinite metric is a number a reader takes for infinity, not null.
import { describe, expect, it } from 'vitest';
import { tableJsonl } from '../../renderer/src/runs/table-export';

describe('the Runs table as JSONL', () => {
  it('keeps each record one line for every reader and infinity a number', () => {
    const text = tableJsonl([
      { id: 1, name: 'a', notes: 'first\u2028second\u0085third\u2029', 'actor/grad_norm': Infinity },
      { id: 2, name: 'b', notes: null, 'actor/grad_norm': -Infinity },
    ]);
    // What splitlines() breaks at: \n, and NEL, U+2028, U+2029 where they stand bare.
    const lines = text.split(/\r\n|[\n\r\u0085\u2028\u2029]/).filter((l) => l !== '');
    expect(lines).toEqual([
      '{"id":1,"name":"a","notes":"first\\u2028second\\u0085third\\u2029","actor/grad_norm":1e999}',
      '{"id":2,"name":"b","notes":null,"actor/grad_norm":-1e999}',
    ]);
    expect((JSON.parse(lines[0]) as { notes: string; 'actor/grad_norm': number })).toEqual({ id: 1, name: 'a', notes: 'first\u2028second\u0085third\u2029', 'actor/grad_norm': Infinity });
  });
});
