import { CapabilityPage } from '../../components/CapabilityPage/CapabilityPage.js';

export function IlpPage() {
  return (
    <CapabilityPage title="ILP" capability="the ILP composition inspector">
      The ILP composition inspector: how the meta-agent composed domain agents under the constitution, drawn from each
      answer&apos;s attention trace.
    </CapabilityPage>
  );
}
