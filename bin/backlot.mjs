#!/usr/bin/env node
// The `backlot` command: loads the TypeScript CLI through tsx so the checkout runs as it is.
import { register } from 'tsx/esm/api';

register();
await import('../src-main/app/cli.ts');
