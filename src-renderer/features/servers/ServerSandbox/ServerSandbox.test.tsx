import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { denial, sandboxSummary } from '../../../testing/server-fixtures.js';
import { formatLocalTime } from '../../activity/audit-format.js';
import { ServerSandbox } from './ServerSandbox.js';

afterEach(cleanup);

const region = () => screen.getByRole('region', { name: 'Sandbox' });
const items = (name: string) =>
  within(region())
    .getAllByRole('listitem')
    .filter((li) => li.closest('ul')?.getAttribute('aria-label') === name)
    .map((li) => li.textContent);

describe('ServerSandbox', () => {
  it('shows what the sandbox grants: backend, each kind of path, hosts, limits and variable names with their keyring origin', () => {
    render(<ServerSandbox sandbox={sandboxSummary()} denials={[]} />);
    expect(within(region()).getByRole('heading', { name: 'Sandbox' })).toBeTruthy();
    expect(region().textContent).toContain('Backendbubblewrap');
    expect(items('Read-only paths')).toEqual(['/home/ada/docs']);
    expect(items('Read-write paths')).toEqual(['/home/ada/scratch']);
    expect(items('Runtime paths')).toEqual(['/usr/bin/node', '/home/ada/servers/files.js']);
    expect(items('Masked protected paths')).toEqual(['/home/ada/docs/.ssh']);
    expect(region().textContent).toContain('NetworkOnly these hosts');
    expect(items('Allowed hosts')).toEqual(['api.github.com']);
    expect(items('Limits')).toEqual(['Processes: 64', 'Memory: 512 MB', 'Mechanism: cgroup v2']);
    expect(items('Environment variables')).toEqual(['PATH', 'GITHUB_TOKEN — from the keyring']);
    expect(within(region()).queryByRole('alert')).toBeNull();
  });

  it('says when the server has no network or only its loopback, when a limit is not enforced, and when a grant is empty', () => {
    const { rerender } = render(<ServerSandbox sandbox={sandboxSummary({ network: { mode: 'none', hosts: [], loopbackPorts: [] }, write: [], env: [], secrets: [] })} denials={[]} />);
    expect(region().textContent).toContain('NetworkNo network');
    expect(region().textContent).toContain('Read-write pathsNone');
    expect(region().textContent).toContain('EnvironmentNone');
    expect(within(region()).queryByRole('list', { name: 'Allowed hosts' })).toBeNull();
    rerender(<ServerSandbox sandbox={sandboxSummary({ network: { mode: 'loopback', hosts: [], loopbackPorts: [5432] }, limits: { mechanism: null, max_processes: null, max_memory_mb: null } })} denials={[]} />);
    expect(region().textContent).toContain("NetworkOnly these ports of this computer's loopback");
    expect(items('Allowed hosts')).toEqual(['127.0.0.1:5432']);
    expect(items('Limits')).toEqual(['Processes: not enforced', 'Memory: not enforced', 'Mechanism: not enforced']);
  });

  it('lists recent denials newest first with time, host:port and reason, at most 20', () => {
    const denials = Array.from({ length: 22 }, (_, i) => denial(50 - i, `host-${i}.example`, 443));
    render(<ServerSandbox sandbox={sandboxSummary()} denials={denials} />);
    const table = within(region()).getByRole('table', { name: 'Recent denials' });
    expect(within(table).getAllByRole('columnheader').map((c) => c.textContent)).toEqual(['Time', 'Destination', 'Reason']);
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(20);
    expect(within(rows[0]!).getAllByRole('cell').map((c) => c.textContent)).toEqual([formatLocalTime(denials[0]!.ts), 'host-0.example:443', 'host not in network.hosts']);
  });

  it('says so when the sandbox refused nothing lately', () => {
    render(<ServerSandbox sandbox={sandboxSummary()} denials={[]} />);
    expect(within(region()).getByRole('heading', { name: 'Recent denials' })).toBeTruthy();
    expect(region().textContent).toContain('No denials recorded');
    expect(within(region()).queryByRole('table')).toBeNull();
  });

  it('warns that an unsandboxed server holds the person\'s files, network and keyring, and why it runs so', () => {
    render(<ServerSandbox sandbox={sandboxSummary({ backend: 'none', unsandboxedReason: '--no-sandbox' })} denials={[]} />);
    const alert = within(region()).getByRole('alert');
    expect(alert.textContent).toContain('Unsandboxed — started with --no-sandbox.');
    expect(alert.textContent).toContain('It runs with your files, your network and your keyring');
    // Nothing bounds it, so no grant is shown as if it applied and no "no denials" reassures.
    expect(within(region()).queryByRole('list')).toBeNull();
    expect(region().textContent).not.toContain('No denials recorded');
  });

  it('says the sandbox was not recorded for a start by an older proxy', () => {
    render(<ServerSandbox sandbox={null} denials={[]} />);
    expect(region().textContent).toBe('SandboxNot recorded (started before sandboxing was recorded)');
    expect(within(region()).queryByRole('alert')).toBeNull();
  });

  it('still shows denials it has when the latest start recorded no sandbox', () => {
    render(<ServerSandbox sandbox={null} denials={[denial(3, '10.0.0.5', 22, 'private address')]} />);
    const rows = within(within(region()).getByRole('table', { name: 'Recent denials' })).getAllByRole('row');
    expect(rows[1]!.textContent).toContain('10.0.0.5:22private address');
  });
});
