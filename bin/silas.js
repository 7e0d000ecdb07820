#!/usr/bin/env node
// The `silas` command. The runtime is TypeScript run through tsx, so `npx silas …` works
// straight after `npm install` with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src-main/cli/main.ts');
const code = await main(process.argv.slice(2));
// Wait for stdout to drain before exiting, so piped output (audit export) is never cut off.
process.stdout.write('', () => process.exit(code));
