/**
 * Vectors that contradict the specification's text, keyed `<level>/<file>#<id>`. Each is
 * reported as skipped with this reason, never as passed, and is listed in docs/conformance.md.
 */
export const KNOWN_DEVIATIONS: ReadonlyMap<string, string> = new Map<string, string>([]);
