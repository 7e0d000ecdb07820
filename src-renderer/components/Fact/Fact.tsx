import type { ReactNode } from 'react';

/** One term of a description list (`<dl>`): a card's facts, a server's sandbox. */
export function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}
