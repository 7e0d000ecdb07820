// First import on purpose: it configures zod before any contract schema is built.
import './lib/zod-config.js';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App/App.js';
import { CockpitProvider } from './app/cockpit-context.js';
import { chooseTransport, streamScopeStorage } from './lib/boot.js';
import { connectCockpit } from './lib/cockpit/connect.js';
import { browserNotifications } from './lib/notifications.js';
import { parseRoute } from './lib/routes.js';
import { createCockpitStore } from './store/cockpit-store.js';
import './styles/base.css';
import './styles/shell.css';
import './styles/activity.css';
import './styles/review.css';
import './styles/servers.css';
import './styles/sandbox.css';
import './styles/policies.css';
import './styles/alignment.css';
import './styles/ilp.css';
import './styles/memory.css';
import './styles/stream.css';
import './styles/stream-context.css';

// Wired once, outside React (docs/architecture.md §4.7): StrictMode's double effects must not open two sockets.
const transport = chooseTransport(window);
const store = createCockpitStore({ connection: transport.state, route: parseRoute(window.location.hash) });
const cockpit = connectCockpit({ transport, store, window, notifications: browserNotifications(window), scopeStorage: streamScopeStorage(window) });

const root = document.getElementById('root');
if (!root) throw new Error('index.html must contain <div id="root">');
createRoot(root).render(
  <StrictMode>
    <CockpitProvider store={store} actions={cockpit.actions}>
      <App />
    </CockpitProvider>
  </StrictMode>,
);
