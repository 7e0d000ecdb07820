import { CapabilityPage } from '../../components/CapabilityPage/CapabilityPage.js';

export function AlignmentPage() {
  return (
    <CapabilityPage title="Alignment" capability="AAP alignment cards and drift detection">
      AAP alignment cards and drift dashboards: each agent&apos;s declared values and how its recorded decisions drift from
      them over time.
    </CapabilityPage>
  );
}
