// The preview worker in a checkout: a worker thread does not inherit the tsx loader the command
// line registered, so this registers it and loads the TypeScript worker (a build runs the bundled
// out/main/sim/preview-worker.js instead).
import { register } from 'tsx/esm/api';

register();
await import('./preview-worker.ts');
