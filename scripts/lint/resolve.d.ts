// Types for resolve.js, which eslint.config.js loads as plain JavaScript.
export const ROOT: string;
export const ALIASES: Record<string, string>;
export function resolveImport(fromFile: string, specifier: string, root?: string): string | null;
export function repoPath(file: string, root?: string): string;
export function isTestOnly(path: string): boolean;
