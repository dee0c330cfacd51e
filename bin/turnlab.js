#!/usr/bin/env node
// The CLI runs the TypeScript sources through tsx so that the command, the tests and the
// desktop app always execute the same code, with no stale build in between.
import { register } from 'tsx/esm/api';

register();
// `npm run turnlab -- ...` starts in the package's folder; paths on the command line are meant
// from the folder the user typed it in, which npm passes as INIT_CWD.
if (process.env.npm_lifecycle_event === 'turnlab' && process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
// A reader that went away (`turnlab runs | head`) ends the command quietly, as it does for cat;
// any other failure to write stdout (a full disk) is the user's redirection, said in one line.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  process.stderr.write(`turnlab: cannot write the output: ${error.message.split('\n')[0]}; check where stdout goes\n`);
  process.exit(2);
});
const { main } = await import('../main/cli.ts');
process.exitCode = await main(process.argv.slice(2));
