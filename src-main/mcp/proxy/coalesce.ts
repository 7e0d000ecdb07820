/**
 * Lines written in one synchronous run (one chunk of input, often many messages when calls
 * are in flight) leave in one write: a write per message was a sixth of the proxy's CPU time.
 * Order is kept; the flush happens before any I/O callback can run. Both stdio transports
 * write through this (stdio-client.ts, spawned-server.ts).
 */
export function coalesce(write: (text: string) => void): (line: string) => void {
  let pending: string[] = [];
  const flush = () => {
    const lines = pending;
    pending = [];
    write(lines.join('\n'));
  };
  return (line) => {
    if (pending.push(line) === 1) queueMicrotask(flush);
  };
}
