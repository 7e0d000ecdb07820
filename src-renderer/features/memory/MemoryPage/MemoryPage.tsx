import { MemoryExport } from '../MemoryExport/MemoryExport.js';
import { MemoryImport } from '../MemoryImport/MemoryImport.js';
import { MemoryResults } from '../MemoryResults/MemoryResults.js';
import { MemorySearch } from '../MemorySearch/MemorySearch.js';
import { MemoryStatusLine } from '../MemoryStatusLine/MemoryStatusLine.js';

/**
 * Memory (spec 002 §6, §3.8): what Silas remembers for the owner across every conversation, found
 * by words, meaning and time, and kept within the trust rules: working memory can be edited,
 * deleted or sent to Review to be verified; verified memory changes only through Review, and
 * constitutional memory never at runtime. The whole memory can be exported as a bundle and a
 * bundle imported (§4.2.3, §6.5).
 */
export function MemoryPage() {
  return (
    <section className="page page--memory" aria-labelledby="page-Memory">
      <h1 id="page-Memory">Memory</h1>
      <p className="page__lead">
        What Silas remembers for you across conversations: it stores what it should keep as you talk, and recalls it in any conversation when it matters.
        Working memory Silas may still change or forget; a memory you verify in Review is treated as confirmed by you.
      </p>
      <MemoryStatusLine />
      <MemorySearch />
      <MemoryResults />
      <div className="memory-transfers">
        <MemoryExport />
        <MemoryImport />
      </div>
    </section>
  );
}
