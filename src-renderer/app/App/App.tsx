import { useEffect, type ComponentType } from 'react';
import { ConnectionNotice } from '../../components/ConnectionNotice/ConnectionNotice.js';
import { ConnectionStatus } from '../../components/ConnectionStatus/ConnectionStatus.js';
import { NavBar } from '../../components/NavBar/NavBar.js';
import { RuntimeSummary } from '../../components/RuntimeSummary/RuntimeSummary.js';
import { SignOutOthers } from '../../components/SignOutOthers/SignOutOthers.js';
import { ActivityPage } from '../../features/activity/ActivityPage/ActivityPage.js';
import { AlignmentPage } from '../../features/alignment/AlignmentPage/AlignmentPage.js';
import { IlpPage } from '../../features/ilp/IlpPage/IlpPage.js';
import { MemoryPage } from '../../features/memory/MemoryPage/MemoryPage.js';
import { PoliciesPage } from '../../features/policies/PoliciesPage/PoliciesPage.js';
import { ReviewPage } from '../../features/review/ReviewPage/ReviewPage.js';
import { ServersPage } from '../../features/servers/ServersPage/ServersPage.js';
import { StreamPage } from '../../features/stream/StreamPage/StreamPage.js';
import { ROUTES, type Route } from '../../lib/routes.js';
import { useCockpit } from '../cockpit-context.js';

const PAGES: Record<Route, ComponentType> = {
  stream: StreamPage,
  review: ReviewPage,
  activity: ActivityPage,
  servers: ServersPage,
  policies: PoliciesPage,
  alignment: AlignmentPage,
  memory: MemoryPage,
  ilp: IlpPage,
};

/** The cockpit shell: header with connection and runtime, main navigation, the routed page. */
export function App() {
  const route = useCockpit((s) => s.navigation.route);
  const Page = PAGES[route];

  useEffect(() => {
    const label = ROUTES.find((r) => r.id === route)?.label ?? 'Silas';
    document.title = `${label} · Silas Control Center`;
  }, [route]);

  return (
    <div className="app">
      <header className="app-header">
        <span className="app-header__brand">Silas Control Center</span>
        <RuntimeSummary />
        <SignOutOthers />
        <ConnectionStatus />
      </header>
      <NavBar />
      <main className="app-main">
        <ConnectionNotice />
        <Page />
      </main>
    </div>
  );
}
