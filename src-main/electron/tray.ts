import type { Menu, MenuItemConstructorOptions, NativeImage, Tray } from 'electron';
import type { DecisionQueue } from '../app/types.js';
import type { ShellLogger } from './logger.js';

export function trayTooltip(pending: number): string {
  return `Silas — ${pending} pending ${pending === 1 ? 'decision' : 'decisions'}`;
}

interface TrayActions {
  openCockpit(): void;
  quit(): void;
}

/**
 * The tray menu for the queue's current state. Rebuilt on every change rather than mutated,
 * because Linux (libappindicator) only picks up a menu when it is set again.
 */
function trayMenuTemplate(decisions: Pick<DecisionQueue, 'isPaused' | 'setPaused'>, actions: TrayActions): MenuItemConstructorOptions[] {
  return [
    { id: 'open', label: 'Open cockpit', click: () => actions.openCockpit() },
    {
      id: 'pause',
      label: 'Pause approvals',
      type: 'checkbox',
      checked: decisions.isPaused(),
      // Read the queue rather than the item's toggled state: the queue is the source of truth.
      click: () => decisions.setPaused(!decisions.isPaused()),
    },
    { type: 'separator' },
    { id: 'quit', label: 'Quit', click: () => actions.quit() },
  ];
}

export interface CockpitTrayOptions extends TrayActions {
  Tray: typeof Tray;
  Menu: Pick<typeof Menu, 'buildFromTemplate'>;
  nativeImage: { createFromPath(path: string): NativeImage };
  iconPath: string;
  decisions: DecisionQueue;
  logger: ShellLogger;
}

export interface CockpitTray {
  refresh(): void;
  dispose(): void;
}

export function createCockpitTray(options: CockpitTrayOptions): CockpitTray {
  const icon = options.nativeImage.createFromPath(options.iconPath);
  if (icon.isEmpty()) options.logger.warn(`tray icon missing or unreadable at ${options.iconPath}`);
  const tray = new options.Tray(icon);
  const actions: TrayActions = { openCockpit: options.openCockpit, quit: options.quit };

  function refresh(): void {
    if (tray.isDestroyed()) return;
    tray.setToolTip(trayTooltip(options.decisions.pendingCount()));
    tray.setContextMenu(options.Menu.buildFromTemplate(trayMenuTemplate(pausingQueue, actions)));
  }

  // Pausing must redraw the checkbox even if the queue does not notify for a pause change.
  const pausingQueue: Pick<DecisionQueue, 'isPaused' | 'setPaused'> = {
    isPaused: () => options.decisions.isPaused(),
    setPaused(paused) {
      options.decisions.setPaused(paused);
      refresh();
    },
  };

  tray.on('click', function openFromTrayIcon() {
    options.openCockpit();
  });
  const unsubscribe = options.decisions.subscribe(refresh);
  refresh();

  return {
    refresh,
    dispose() {
      unsubscribe();
      if (!tray.isDestroyed()) tray.destroy();
    },
  };
}
