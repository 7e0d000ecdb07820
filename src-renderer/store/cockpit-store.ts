import { createStore, type StoreApi } from 'zustand/vanilla';
import { DEFAULT_ROUTE, type Route } from '../lib/routes.js';
import type { ConnectionState } from '../lib/transport.js';
import { createAlignmentSlice, type AlignmentSlice } from './alignment-slice.js';
import { createAuditSlice, type AuditSlice } from './audit-slice.js';
import { createChainSlice, type ChainSlice } from './chain-slice.js';
import { createClientsSlice, type ClientsSlice } from './clients-slice.js';
import { createConnectionSlice, type ConnectionSlice } from './connection-slice.js';
import { createIlpSlice, type IlpSlice } from './ilp-slice.js';
import { createMemorySlice, type MemorySlice } from './memory.js';
import { createNavigationSlice, type NavigationSlice } from './navigation-slice.js';
import { createPolicyEditorSlice, type PolicyEditorSlice } from './policy-editor-slice.js';
import { createReviewSlice, type ReviewSlice } from './review-slice.js';
import { createRuntimeSlice, type RuntimeSlice } from './runtime-slice.js';
import { createServersSlice, type ServersSlice } from './servers-slice.js';
import { createStandingSlice, type StandingSlice } from './standing-slice.js';
import { createStreamContextSlice, type StreamContextSlice } from './stream-context.js';
import { createStreamSlice, type StreamSlice } from './stream-slice.js';

export type CockpitState = ConnectionSlice & RuntimeSlice & AuditSlice & ChainSlice & ReviewSlice & ServersSlice & ClientsSlice & StandingSlice & PolicyEditorSlice & AlignmentSlice & IlpSlice & MemorySlice & StreamSlice & StreamContextSlice & NavigationSlice;
export type CockpitStore = StoreApi<CockpitState>;

export interface CockpitStoreInit {
  connection?: ConnectionState;
  route?: Route;
}

/**
 * The cockpit's one store (DESIGN §4). A factory rather than a module singleton so that each
 * test, and each window, gets its own state; the slices hold state transitions only, and all
 * I/O lives in lib/cockpit/.
 */
export function createCockpitStore(init: CockpitStoreInit = {}): CockpitStore {
  return createStore<CockpitState>()((...a) => ({
    ...createConnectionSlice(init.connection ?? 'connecting')(...a),
    ...createRuntimeSlice(...a),
    ...createAuditSlice(...a),
    ...createChainSlice(...a),
    ...createReviewSlice(...a),
    ...createServersSlice(...a),
    ...createClientsSlice(...a),
    ...createStandingSlice(...a),
    ...createPolicyEditorSlice(...a),
    ...createAlignmentSlice(...a),
    ...createIlpSlice(...a),
    ...createMemorySlice(...a),
    ...createStreamSlice(...a),
    ...createStreamContextSlice(...a),
    ...createNavigationSlice(init.route ?? DEFAULT_ROUTE)(...a),
  }));
}
