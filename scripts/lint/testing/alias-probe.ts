// Imports through the @main/@shared path aliases, loaded by aliases.test.ts under vitest, tsx and
// esbuild to prove each resolves them.
import { ErrorCode } from '@shared/errors.js';
import { homePaths } from '@main/home/paths.js';

export const probe = { ErrorCode, homePaths };
