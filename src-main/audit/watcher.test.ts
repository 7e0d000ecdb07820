import { describe, expect, it } from 'vitest';
import { createTestLedger } from '../testing/ledger.js';
import { useTempDirs } from '../testing/temp.js';
import { AuditWatcher, WATCH_PAGE } from './watcher.js';

describe('AuditWatcher', () => {
  const temp = useTempDirs('silas-watcher-');

  function ledgerWithBacklog(backlog: number) {
    const ledger = createTestLedger(temp());
    ledger.audit.append('test.entry', { seq: -1, note: 'before the watcher' });
    const published: number[] = [];
    const watcher = new AuditWatcher(ledger.audit, (entry) => published.push(entry.index));
    // Appended by "another process": the same file through a second audit log.
    const proxy = ledger.reopen();
    for (let i = 0; i < backlog; i += 1) proxy.append('test.entry', { seq: i, note: `from a proxy ${i}` });
    return { ledger, watcher, published };
  }

  it('publishes a backlog one page per turn of the event loop, letting other work run between pages', async () => {
    const backlog = 2 * WATCH_PAGE + 123;
    const { ledger, watcher, published } = ledgerWithBacklog(backlog);
    const seenBetweenPages: number[] = [];
    // Queued before the first page: runs after it and before the second (an answer to a
    // WebSocket call or to a proxy's ask would be served here).
    setImmediate(() => seenBetweenPages.push(published.length));
    watcher.poll();
    expect(published).toHaveLength(WATCH_PAGE);
    // A poll while the backlog drains (an own append, the timer) neither skips nor repeats entries.
    watcher.poll();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seenBetweenPages).toEqual([WATCH_PAGE]);
    // Every entry after the one the watcher started at, once and in order (checkpoints included).
    const head = ledger.audit.head()!.index;
    expect(head).toBeGreaterThanOrEqual(backlog);
    expect(published).toEqual(Array.from({ length: head }, (_, i) => i + 1));
    watcher.stop();
    ledger.db.close();
  });

  it('stopping while a backlog drains publishes nothing more', async () => {
    const { ledger, watcher, published } = ledgerWithBacklog(3 * WATCH_PAGE);
    watcher.poll();
    watcher.stop();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(published).toHaveLength(WATCH_PAGE);
    ledger.db.close();
  });
});
