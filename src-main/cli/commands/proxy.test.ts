import { describe, expect, it } from 'vitest';
import { runSilas } from '../../testing/cli.js';
import { splitTarget } from './proxy.js';

describe('silas proxy (arguments)', () => {
  it('splits --target on whitespace with quotes grouping, never through a shell', () => {
    expect(splitTarget('npx -y "@scope/server files" \'a b\' $HOME;rm')).toEqual(['npx', '-y', '@scope/server files', 'a b', '$HOME;rm']);
  });

  it('needs a policy and a server command, and not both forms of it', async () => {
    expect(await runSilas(['proxy', '--', 'node', 's.js'])).toMatchObject({ code: 2, err: expect.stringMatching(/--policy FILE is required/) });
    expect(await runSilas(['proxy', '--policy', 'p.yaml'])).toMatchObject({ code: 2, err: expect.stringMatching(/name the MCP server command/) });
    expect(await runSilas(['proxy', '--policy', 'p.yaml', '--target', 'a', '--', 'b'])).toMatchObject({ code: 2, err: expect.stringMatching(/not both/) });
    expect(await runSilas(['proxy', '--policy', 'p.yaml', 'server.js'])).toMatchObject({ code: 2, err: expect.stringMatching(/put the server command after --/) });
    expect(await runSilas(['proxy', '--policy', 'p.yaml', '--ask-timeout', '0', '--', 'x'])).toMatchObject({ code: 2, err: expect.stringMatching(/--ask-timeout/) });
    expect(await runSilas(['proxy', '--policy', 'p.yaml', '--client', '../Claude Desktop', '--', 'x'])).toMatchObject({ code: 2, err: expect.stringMatching(/--client: expected an agent client id such as claude-desktop/) });
  });

  it('prints its help', async () => {
    expect(await runSilas(['proxy', '--help'])).toMatchObject({ code: 0, out: expect.stringMatching(/--ask-timeout SECONDS/) });
  });
});
