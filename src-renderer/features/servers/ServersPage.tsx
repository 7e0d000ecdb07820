import { CapabilityPage } from '../../components/CapabilityPage/CapabilityPage.js';

export function ServersPage() {
  return (
    <CapabilityPage title="Servers" capability="silas proxy">
      The MCP servers governed by <code>silas proxy</code>: which clients launch them, their pinned tool schemas and their
      health.
    </CapabilityPage>
  );
}
