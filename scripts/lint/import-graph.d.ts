// Types for import-graph.js (a script run by node).
export function productionImports(): [file: string, specifier: string, target: string][];
