// A worker thread starts here: the trainer's sources are TypeScript, run through tsx as the
// CLI runs them, so a worker executes the same code as the main thread.
import { register } from 'tsx/esm/api';

register();
await import('./worker-thread.ts');
