import type { CallAccess } from '../../src-shared/contract/define.js';

export type Transport = 'ipc' | 'websocket' | 'local-socket' | 'in-process';

/**
 * What a session may do, by the one credential its transport accepts (DESIGN invariant 8;
 * docs/architecture.md §2 and docs/control-plane.md).
 * The local socket takes only the ask credential from control.json, which any same-user
 * process (a proxy, a CLI command, an MCP server behind a proxy) can read: it may ask, never
 * read the person's queue or decide. The WebSocket takes only the cockpit credential, which is
 * never written to disk, and only from a browser Origin; IPC is the app:// cockpit page.
 */
const SESSION_CAPABILITIES: Readonly<Record<Transport, readonly CallAccess[]>> = {
  'local-socket': ['ask', 'converse'],
  websocket: ['read', 'decide', 'converse'],
  ipc: ['read', 'decide', 'converse'],
  // The runtime's own calls (composition root, tests): nothing crosses a trust boundary.
  'in-process': ['ask', 'read', 'decide', 'converse'],
};

export function sessionMay(transport: Transport, access: CallAccess): boolean {
  return (SESSION_CAPABILITIES[transport] ?? []).includes(access);
}

const WHERE: Record<CallAccess, string> = {
  ask: 'ask over the local control socket with the credential in HOME/control.json (silas proxy, silas run)',
  read: 'open the cockpit (the desktop window, or the address `silas start` printed; `silas open` prints it again)',
  decide: 'decide in the cockpit (the desktop window, or the address `silas start` printed; `silas open` prints it again)',
  converse: 'talk to Silas from the cockpit or `silas chat`',
};

/** Why a call was refused and where it can be made instead. */
export function refusalMessage(call: string, access: CallAccess, transport: Transport): string {
  return `${call} needs the "${access}" capability, which a ${transport} session does not hold; ${WHERE[access]}`;
}
