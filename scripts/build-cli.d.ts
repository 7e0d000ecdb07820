// Types for scripts/build-cli.js, which bin/silas.js runs as plain JavaScript.
export type BuildState = 'fresh' | 'missing' | 'stale';
export interface BuildManifest {
  /** Milliseconds since the epoch when the build started reading sources. */
  builtAt: number;
  /** The project files the build read, relative to the repository root. */
  inputs: string[];
}
export const ROOT: string;
export const OUT_DIR: string;
export const MANIFEST: string;
export function buildState(): BuildState;
export function buildCli(): Promise<BuildManifest>;
