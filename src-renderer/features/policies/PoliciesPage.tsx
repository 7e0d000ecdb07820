import { CapabilityPage } from '../../components/CapabilityPage/CapabilityPage.js';

export function PoliciesPage() {
  return (
    <CapabilityPage title="Policies" capability="the AIP policy editor">
      The AIP policy editor: allow, block and ask rules, argument patterns, protected paths, rate limits and DLP for every
      proxied server.
    </CapabilityPage>
  );
}
