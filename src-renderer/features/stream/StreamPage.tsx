import { CapabilityPage } from '../../components/CapabilityPage/CapabilityPage.js';

export function StreamPage() {
  return (
    <CapabilityPage title="Stream" capability="the Silas kernel">
      The Silas agent&apos;s conversation and status: what it is planning, what it asked you to approve, and what it did.
    </CapabilityPage>
  );
}
