// Types for layers.js, which eslint.config.js loads as plain JavaScript.
export interface LayerRow {
  may: string[];
  fix: string;
}
export const LAYERS: Record<string, LayerRow>;
export const EXCEPTIONS: { file: string; target: string; why: string }[];
export function folderOf(path: string): string | null;
export function checkImport(file: string, specifier: string): string | null;
