import type { ReactNode } from 'react';

export interface CapabilityPageProps {
  title: string;
  /** The capability that will fill this page, e.g. "the Silas kernel". */
  capability: string;
  children: ReactNode;
}

/** A routed surface whose capability has not landed yet: it says what will be here and what brings it. */
export function CapabilityPage({ title, capability, children }: CapabilityPageProps) {
  return (
    <section className="page page--capability" aria-labelledby={`page-${title}`}>
      <h1 id={`page-${title}`}>{title}</h1>
      <p className="page__lead">{children}</p>
      <p className="page__pending">
        Arrives with <strong>{capability}</strong>.
      </p>
    </section>
  );
}
