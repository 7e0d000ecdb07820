const RECONNECT_BASE_MS = 250;
const RECONNECT_MAX_MS = 5000;

/** Delay before reconnect attempt `attempt` (0-based): 250 ms doubling, capped at 5 s. */
export function reconnectDelay(attempt: number): number {
  const exponent = Math.max(0, Math.min(attempt, 16));
  return Math.min(RECONNECT_MAX_MS, RECONNECT_BASE_MS * 2 ** exponent);
}
