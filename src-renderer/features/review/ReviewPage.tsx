import { CapabilityPage } from '../../components/CapabilityPage/CapabilityPage.js';

export function ReviewPage() {
  return (
    <CapabilityPage title="Review" capability="signed approvals for MCP proxies and Silas plans">
      The decision queue: pending approvals from MCP proxies and Silas plans, each signed with your owner key when you decide.
    </CapabilityPage>
  );
}
