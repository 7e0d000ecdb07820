/**
 * STRING() of spec 001 §4.5: what an argument regex is matched against. Strings as-is,
 * numbers in decimal, booleans as true/false, null as the empty string, arrays and objects as
 * JSON. JavaScript's number formatting is the decimal form for every integer an MCP client
 * can send exactly (up to 2^53); larger or fractional values use the shortest round-trip form.
 */
export function argumentString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? decimal(value) : String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value === null || value === undefined) return '';
  return JSON.stringify(value) ?? '';
}

function decimal(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return BigInt(n).toString();
  return String(n);
}
