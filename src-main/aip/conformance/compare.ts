/**
 * Compares an expected value from a vector with what we produced. Objects in `expected` are
 * a subset: every key they name must match, extra keys we add (more detail in `data`) are
 * fine. Arrays and scalars must match exactly. Returns a description of the first mismatch.
 */
export function subsetMismatch(expected: unknown, actual: unknown, path = ''): string | null {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return `${path || 'value'}: expected an object, got ${JSON.stringify(actual)}`;
    for (const [key, value] of Object.entries(expected)) {
      const problem = subsetMismatch(value, (actual as Record<string, unknown>)[key], path ? `${path}.${key}` : key);
      if (problem) return problem;
    }
    return null;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
    for (let i = 0; i < expected.length; i += 1) {
      const problem = subsetMismatch(expected[i], actual[i], `${path}[${i}]`);
      if (problem) return problem;
    }
    return null;
  }
  return Object.is(expected, actual) || expected === actual ? null : `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}
