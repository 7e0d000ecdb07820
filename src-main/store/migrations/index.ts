import { sql as m001 } from './001_audit_and_keys.js';
import { sql as m002 } from './002_mcp_proxy.js';
import { sql as m003 } from './003_standing_approvals.js';
import { sql as m004 } from './004_drop_audit_ts_index.js';
import { sql as m005 } from './005_silas_approvals.js';
import { sql as m006 } from './006_work_items.js';
import { sql as m007 } from './007_keyed_audit_chain.js';
import { sql as m008 } from './008_one_decision_system.js';
import { sql as m009 } from './009_chronicle_and_memory.js';
import { sql as m010 } from './010_stream_scopes.js';
import { sql as m011 } from './011_policy_versions.js';
import { sql as m012 } from './012_alignment.js';
import { sql as m013 } from './013_stream_seals.js';
import { sql as m014 } from './014_alignment_seals.js';
import { sql as m015 } from './015_policy_version_seals.js';
import { sql as m017 } from './017_tool_pin_seals.js';
import { sql as m018 } from './018_memory_seals.js';
import { sql as m019 } from './019_chronicle_seals.js';
import { sql as m020 } from './020_tool_pins_held_at_first_sight.js';
import { sql as m022 } from './022_ilp_episodes.js';
import { sql as m023 } from './023_ilp_compositions.js';
import { sql as m024 } from './024_ilp_slice_versions.js';
import { sql as m025 } from './025_memory_recall.js';
import { sql as m026 } from './026_context_subscriptions.js';
import { sql as m027 } from './027_memory_vector_cells.js';

export interface Migration {
  /** Zero-padded number and a name: `001_audit_and_keys`. Immutable once released. */
  readonly id: string;
  readonly sql: string;
}

/** Every migration this version of the app knows, in order. Append only; never edit a released one. */
export const MIGRATIONS: readonly Migration[] = [
  { id: '001_audit_and_keys', sql: m001 },
  { id: '002_mcp_proxy', sql: m002 },
  { id: '003_standing_approvals', sql: m003 },
  { id: '004_drop_audit_ts_index', sql: m004 },
  { id: '005_silas_approvals', sql: m005 },
  { id: '006_work_items', sql: m006 },
  { id: '007_keyed_audit_chain', sql: m007 },
  { id: '008_one_decision_system', sql: m008 },
  { id: '009_chronicle_and_memory', sql: m009 },
  { id: '010_stream_scopes', sql: m010 },
  { id: '011_policy_versions', sql: m011 },
  { id: '012_alignment', sql: m012 },
  { id: '013_stream_seals', sql: m013 },
  { id: '014_alignment_seals', sql: m014 },
  { id: '015_policy_version_seals', sql: m015 },
  { id: '017_tool_pin_seals', sql: m017 },
  { id: '018_memory_seals', sql: m018 },
  { id: '019_chronicle_seals', sql: m019 },
  { id: '020_tool_pins_held_at_first_sight', sql: m020 },
  { id: '022_ilp_episodes', sql: m022 },
  { id: '023_ilp_compositions', sql: m023 },
  { id: '024_ilp_slice_versions', sql: m024 },
  { id: '025_memory_recall', sql: m025 },
  { id: '026_context_subscriptions', sql: m026 },
  { id: '027_memory_vector_cells', sql: m027 },
];
