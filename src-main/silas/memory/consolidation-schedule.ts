import { Cron } from 'croner';
import type { MemoryConsolidator } from './consolidator.js';

/*
 * When the consolidator runs (spec 002 §6.4: "runs periodically, configurable interval, default 30
 * minutes"): a croner schedule inside the runtime, never two cycles at once (croner's protect),
 * stopped with the runtime. A cycle that fails is audited and the next one runs at its time.
 */

const DEFAULT_CONSOLIDATION_PATTERN = '*/30 * * * *';

export class ConsolidationSchedule {
  private job: Cron | null = null;
  private readonly abort = new AbortController();

  constructor(
    private readonly consolidator: Pick<MemoryConsolidator, 'runOnce'>,
    private readonly audit: { append(type: string, data: Record<string, unknown>): unknown },
    private readonly pattern = DEFAULT_CONSOLIDATION_PATTERN,
  ) {}

  start(): void {
    if (this.job) return;
    this.job = new Cron(this.pattern, { protect: true, unref: true }, async () => {
      try {
        await this.consolidator.runOnce(this.abort.signal);
      } catch (error) {
        if (this.abort.signal.aborted) return;
        this.audit.append('silas.memory.consolidation_failed', { reason: (error instanceof Error ? error.message : String(error)).slice(0, 500) });
      }
    });
  }

  stop(): void {
    this.abort.abort();
    this.job?.stop();
    this.job = null;
  }
}
