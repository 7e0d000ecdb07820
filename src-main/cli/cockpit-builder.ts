import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import type { CockpitBuilder } from '../app/types.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The vite CLI of this installation, or null when dev dependencies were not installed. */
function viteCli(): string | null {
  try {
    const manifest = createRequire(import.meta.url).resolve('vite/package.json');
    const bin = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: Record<string, string> }).bin?.vite;
    return bin ? join(dirname(manifest), bin) : null;
  } catch {
    return null;
  }
}

/**
 * Builds the browser cockpit with this checkout's vite config, so `silas start` serves it even
 * when installation skipped the `prepare` build (`npm install --ignore-scripts`, a copied tree).
 */
export class ViteCockpitBuilder implements CockpitBuilder {
  constructor(
    private readonly say: (text: string) => void,
    private readonly root: string = REPO_ROOT,
  ) {}

  build(outDir: string): Promise<void> {
    const config = join(this.root, 'vite.cockpit.config.ts');
    const vite = viteCli();
    if (!existsSync(config) || !vite) {
      return Promise.reject(new SilasError(ErrorCode.Config, `the cockpit sources or vite are not installed here; run \`npm install\` (with dev dependencies) in ${this.root}, or \`npm run build:cockpit\``));
    }
    this.say(`The cockpit is not built yet; building it into ${outDir} (once, about a minute)…`);
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [vite, 'build', '--config', config, '--outDir', outDir, '--emptyOutDir'], { cwd: this.root, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-2000)));
      child.on('error', (error) => reject(new SilasError(ErrorCode.Config, `could not run vite: ${error.message}; run \`npm run build:cockpit\``)));
      child.on('exit', (code) => {
        if (code === 0 && existsSync(join(outDir, 'index.html'))) resolve();
        else reject(new SilasError(ErrorCode.Config, `building the cockpit failed (exit ${code}): ${stderr.trim().split('\n').slice(-3).join(' ')}; run \`npm run build:cockpit\` to see why`));
      });
    });
  }
}
