import { StandingApprovals } from '../StandingApprovals/StandingApprovals.js';

/** Policies: for now the standing approvals; the AIP policy editor joins them later. */
export function PoliciesPage() {
  return (
    <section className="page page--policies" aria-labelledby="page-Policies">
      <h1 id="page-Policies">Policies</h1>
      <p className="page__lead">
        The AIP policy editor — allow, block and ask rules, argument patterns, protected paths, rate limits and DLP for every proxied server —
        arrives later on this page.
      </p>
      <StandingApprovals />
    </section>
  );
}
