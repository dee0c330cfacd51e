// Submitting over `ssh HOST`: the scheduler's tools get their arguments through a remote shell,
// so every word must survive one more round of shell parsing. An `ssh` on PATH that runs the
// command line it is given in bash, as sshd would, checks the quoting for real.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createShell } from '../../main/cluster/shell';

const bin = mkdtempSync(join(tmpdir(), 'turnlab-ssh-'));
afterAll(() => rmSync(bin, { recursive: true, force: true }));
// Records its options and host, then runs the remote command line as a login shell would.
writeFileSync(join(bin, 'ssh'), `#!/bin/bash\necho "$1 $2 $3 $4" > "${bin}/called"\nshift 4\nexec bash -c "$*"\n`);
chmodSync(join(bin, 'ssh'), 0o755);

describe('the login-node shell', () => {
  it('runs a command over ssh -o BatchMode=yes HOST with every word intact', async () => {
    const shell = createShell('login.example', { ...process.env, PATH: `${bin}:${process.env.PATH}` });
    const words = ['printf', '%s|', 'a b', "it's", '$HOME', 'x;y', '*', '--sbatch=--mem=8G'];
    const result = await shell.run(words);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("a b|it's|$HOME|x;y|*|--sbatch=--mem=8G|");
    expect(readFileSync(join(bin, 'called'), 'utf8').trim()).toBe('-o BatchMode=yes login.example --');
  });

  it('reports a tool that is not there as a failed run, not a crash', async () => {
    const result = await createShell(null).run(['turnlab-no-such-tool']);
    expect(result.code).toBe(127);
    expect(result.stderr).toMatch(/turnlab-no-such-tool: spawn turnlab-no-such-tool ENOENT/);
  });
});
