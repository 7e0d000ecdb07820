import { createContext, useContext, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { CockpitActions } from '../lib/cockpit/connect.js';
import type { CockpitState, CockpitStore } from '../store/cockpit-store.js';

interface CockpitContextValue {
  store: CockpitStore;
  actions: CockpitActions;
}

const CockpitContext = createContext<CockpitContextValue | null>(null);

export function CockpitProvider({ store, actions, children }: CockpitContextValue & { children: ReactNode }) {
  return <CockpitContext.Provider value={{ store, actions }}>{children}</CockpitContext.Provider>;
}

function useCockpitContext(): CockpitContextValue {
  const value = useContext(CockpitContext);
  if (!value) throw new Error('cockpit components must be rendered inside <CockpitProvider>');
  return value;
}

/** Subscribes to the smallest piece of state a component needs; return primitives or stable references. */
export function useCockpit<T>(selector: (state: CockpitState) => T): T {
  return useStore(useCockpitContext().store, selector);
}

export function useCockpitActions(): CockpitActions {
  return useCockpitContext().actions;
}
