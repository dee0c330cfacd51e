#!/usr/bin/env node
// The CLI runs the TypeScript sources through tsx so that the command, the tests and the
// desktop app always execute the same code, with no stale build in between.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../main/cli.ts');
process.exitCode = await main(process.argv.slice(2));
