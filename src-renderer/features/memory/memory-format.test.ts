import { describe, expect, it } from 'vitest';
import { memoryStatus } from '../../testing/memory-fixtures.js';
import { countsText, lockedText, memoryTypeLabel, recalledText, resultsLead, semanticText, viaText } from './memory-format.js';

describe('memory text', () => {
  it('says whether recall by meaning is ready, catching up, starting or off, and why', () => {
    expect(semanticText(memoryStatus().semantic)).toBe('Recall by meaning: ready (local word vectors, 100 dimensions)');
    expect(semanticText({ state: 'ready', embedder: 'openai-compatible:text-embedding-3-small@https://api.example#256', dimensions: 256, pending: 0, problem: null })).toBe(
      'Recall by meaning: ready (openai-compatible:text-embedding-3-small, 256 dimensions)',
    );
    expect(semanticText({ state: 'reembedding', embedder: 'local:x', dimensions: 100, pending: 12, problem: null })).toBe('Recall by meaning: catching up: 12 memories waiting');
    expect(semanticText({ state: 'reembedding', embedder: 'local:x', dimensions: 100, pending: 1, problem: 're-embedding paused: timeout' })).toBe(
      'Recall by meaning: catching up: 1 memory waiting — re-embedding paused: timeout',
    );
    expect(semanticText({ state: 'starting', embedder: null, dimensions: null, pending: 0, problem: null })).toBe('Recall by meaning: starting');
    expect(semanticText({ state: 'unavailable', embedder: null, dimensions: null, pending: 0, problem: 'sqlite-vec did not load; reinstall Silas' })).toBe(
      'Recall by meaning: off: sqlite-vec did not load; reinstall Silas',
    );
  });

  it('counts what memory holds', () => {
    expect(countsText(memoryStatus())).toBe('3 active memories (1 verified, 0 constitutional), 12 in the raw record');
    expect(countsText(memoryStatus({ active: 1, raw: 0, verified: 0 }))).toBe('1 active memory (0 verified, 0 constitutional), 0 in the raw record');
  });

  it('says how a memory was found and how often it was recalled', () => {
    expect(viaText(['keyword', 'semantic', 'temporal'])).toBe('found by keyword, meaning and time');
    expect(viaText(['semantic'])).toBe('found by meaning');
    expect(viaText(['recent'])).toBe('newest');
    expect(viaText([])).toBe('');
    expect(recalledText(0)).toBe('never recalled');
    expect(recalledText(1)).toBe('recalled 1 time');
    expect(recalledText(3)).toBe('recalled 3 times');
  });

  it('says why verified and constitutional memory offer no changes', () => {
    expect(lockedText('working')).toBeNull();
    expect(lockedText('verified')).toBe('Verified: changes only through Review');
    expect(lockedText('constitutional')).toBe('Constitutional: never changed at runtime');
    expect(memoryTypeLabel('skill_note')).toBe('Skill note');
  });

  it('introduces the results by what was searched', () => {
    expect(resultsLead('', 50)).toBe('The 50 newest memories');
    expect(resultsLead('', 1)).toBe('The newest memory');
    expect(resultsLead('tabs', 2)).toBe('2 memories matching “tabs”, best first');
  });
});
