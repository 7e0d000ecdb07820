import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { commandOpener } from '../../app/cli-context.js';
import { proxyMain } from '../../cli/commands/proxy.js';
import type { SecretStore } from '../../keys/secret-store.js';
import type { Approver } from '../proxy/approver.js';
import { childEnv, StreamClientTransport } from './proxy-harness.js';

export interface CommandProxy {
  client: Client;
  /** What the proxy wrote to its stderr. */
  err: string[];
  /** Ends the client's side (the proxy's stdin) and resolves with the command's exit code. */
  close(): Promise<number>;
}

/**
 * `silas proxy` through its main function, in this process (so a test can use a fake clock), with
 * its defaults as a person gets them; unsandboxed, and with an injected approver in place of the
 * control socket. An MCP SDK client with its own defaults talks to it.
 */
export async function startProxyCommand(options: { home: string; secretStore: SecretStore; policy: string; server: string; approver: Approver; flags?: string[] }): Promise<CommandProxy> {
  const input = new PassThrough();
  const output = new PassThrough();
  const err: string[] = [];
  const argv = ['--policy', options.policy, '--home', options.home, '--name', 'files', '--no-sandbox', ...(options.flags ?? []), '--', process.execPath, options.server];
  const io = { out: (text: string) => output.write(`${text}\n`), err: (text: string) => void err.push(text), env: childEnv(), secretStore: options.secretStore, stdin: input };
  const done = proxyMain(argv, io, commandOpener(io), { approver: options.approver });
  const client = new Client({ name: 'proxy-command-test', version: '1.0.0' });
  await client.connect(new StreamClientTransport(input, output));
  return {
    client,
    err,
    close: async () => {
      await client.close();
      return done;
    },
  };
}
