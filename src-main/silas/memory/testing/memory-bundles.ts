import { createHash } from 'node:crypto';
import type { MemoryItem } from '../../../../src-shared/silas/memory.js';
import { BUNDLE_KIND, BUNDLE_VERSION, headerLine, itemLine, MEMORY_SCHEMA_VERSION, trailerLine, type BundleHeader } from '../bundle-format.js';

/** A bundle's text as `silas memory export` writes it, from items a test chose (header fields overridable). */
export function bundleText(items: readonly MemoryItem[], header: Partial<BundleHeader> = {}): string {
  const lines = [
    headerLine({
      kind: BUNDLE_KIND,
      bundle_version: BUNDLE_VERSION,
      schema_version: MEMORY_SCHEMA_VERSION,
      exported_at: '2026-03-01T00:00:00.000Z',
      count: items.length,
      include_raw: true,
      scope: null,
      since: null,
      embedding: 'omitted',
      ...header,
    }),
    ...items.map(itemLine),
  ];
  return withTrailer(lines, items.length);
}

/** Lines (header and records) closed by a trailer with their real count and SHA-256. */
export function withTrailer(lines: readonly string[], count: number): string {
  const body = lines.map((line) => `${line}\n`).join('');
  return `${body}${trailerLine({ end: true, count, sha256: createHash('sha256').update(body, 'utf8').digest('hex') })}\n`;
}

const TYPES = ['fact', 'episode', 'preference', 'skill_note', 'decision', 'foresight', 'profile'] as const;

/** One memory with every field set; `overrides` change any of them. */
export function memoryItem(id: string, overrides: Partial<MemoryItem> = {}): MemoryItem {
  return {
    memory_id: id,
    scope_id: 'owner',
    content: `memory ${id}: the deploy window is Tuesday`,
    memory_type: 'fact',
    reingestion_tier: 'active',
    trust_level: 'working',
    taint: 'owner',
    source_kind: 'memory_op',
    token_count: 9,
    created_at: '2026-02-01T10:00:00.000Z',
    updated_at: '2026-02-02T10:00:00.000Z',
    valid_from: null,
    valid_until: null,
    access_count: 0,
    last_accessed: null,
    semantic_tags: [],
    entity_refs: [],
    causal_refs: [],
    temporal_next: null,
    temporal_prev: null,
    session_id: null,
    ...overrides,
  };
}

/**
 * Memories covering every value a field can take: each memory type, both lanes, the three trust
 * levels, the three taints, two scopes, references and temporal links, sessions, validity windows,
 * access counts and text that JSON must escape.
 */
export function everyKindOfMemory(): MemoryItem[] {
  const items: MemoryItem[] = TYPES.map((type, i) =>
    memoryItem(`m-${type}`, {
      memory_type: type,
      reingestion_tier: i % 2 === 0 ? 'active' : 'low_reingestion',
      taint: (['owner', 'auth', 'external'] as const)[i % 3],
      source_kind: i % 2 === 0 ? 'memory_op' : 'conversation_raw',
      token_count: 10 + i,
      created_at: `2026-02-0${i + 1}T08:00:00.000Z`,
      updated_at: `2026-02-0${i + 1}T09:30:00.000Z`,
      session_id: i % 3 === 0 ? null : `session-${i}`,
    }),
  );
  items.push(
    memoryItem('m-constitutional', { trust_level: 'constitutional', taint: 'owner', memory_type: 'profile', content: 'Never send money without asking.' }),
    memoryItem('m-verified', {
      trust_level: 'verified',
      taint: 'auth',
      memory_type: 'preference',
      semantic_tags: ['behavior:response/include_sources', 'sources'],
      access_count: 42,
      last_accessed: '2026-02-20T12:00:00.000Z',
    }),
    memoryItem('m-verified-external', { trust_level: 'verified', taint: 'external', content: 'The API rate limit is 600 a minute (confirmed by the owner).' }),
    memoryItem('m-linked', {
      content: 'Line one\nline "two"\t\u00e9\u4e2d\u{1f600} \\ </script>',
      entity_refs: ['person:alice', 'project:atlas'],
      causal_refs: ['m-fact', 'm-episode'],
      temporal_prev: 'm-fact',
      temporal_next: 'm-episode',
      valid_from: '2026-01-01T00:00:00.000Z',
      valid_until: '2026-12-31T23:59:59.999Z',
      access_count: 3,
      last_accessed: '2026-02-21T00:00:00.000Z',
      session_id: 'session-linked',
    }),
    memoryItem('m-connection', { scope_id: 'connection:web-7', content: 'a memory of another connection', taint: 'auth' }),
    memoryItem('m-connection-raw', { scope_id: 'connection:web-7', reingestion_tier: 'low_reingestion', source_kind: 'tool_output_raw', taint: 'external' }),
  );
  return items;
}
