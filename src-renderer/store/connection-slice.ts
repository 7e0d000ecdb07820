import type { StateCreator } from 'zustand';
import type { ConnectionState } from '../lib/transport.js';
import type { CockpitState } from './cockpit-store.js';

export interface ConnectionSlice {
  connection: { state: ConnectionState };
  setConnection(state: ConnectionState): void;
}

export function createConnectionSlice(initial: ConnectionState): StateCreator<CockpitState, [], [], ConnectionSlice> {
  return (set) => ({
    connection: { state: initial },
    setConnection: (state) => set((s) => (s.connection.state === state ? s : { connection: { state } })),
  });
}
