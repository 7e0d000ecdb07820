import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../../testing/temp.js';
import { noteAnnouncedRoots } from '../../../mcp/proxy/context.js';
import { announcedRoots, commandLineBases, PathBases } from './path-bases.js';

const temp = useTempDirs('silas-path-bases-');

describe('path bases: where a server may resolve a relative path', () => {
  it('the working directory and every existing directory on the command line, also after --opt=', () => {
    const root = realpathSync(temp());
    mkdirSync(join(root, 'data'));
    mkdirSync(join(root, 'more'));
    const bases = commandLineBases('/', ['server.js', join(root, 'data'), `--root=${join(root, 'more')}`, '--verbose', join(root, 'missing')]);
    expect(bases).toEqual(['/', join(root, 'data'), join(root, 'more')]);
    expect(commandLineBases(root, ['data'])).toEqual([root, join(root, 'data')]);
  });

  it('roots the client announces in its roots/list answer become bases; other messages do not', () => {
    const root = realpathSync(temp());
    const bases = new PathBases();
    const logs: string[] = [];
    const answer = JSON.stringify({ jsonrpc: '2.0', id: 7, result: { roots: [{ uri: pathToFileURL(root).href, name: 'project' }, { uri: 'https://example.com/x' }] } });
    noteAnnouncedRoots(bases, answer, (t) => logs.push(t));
    expect(bases.list()).toEqual([root]);
    expect(logs).toHaveLength(1);
    noteAnnouncedRoots(bases, answer, (t) => logs.push(t));
    expect(logs).toHaveLength(1);
    noteAnnouncedRoots(bases, '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"roots"}}', () => undefined);
    noteAnnouncedRoots(bases, '{"roots": not json', () => undefined);
    expect(bases.list()).toEqual([root]);
    expect(announcedRoots({ result: { roots: 'x' } })).toEqual([]);
  });

  it('past the cap the list reports overflow instead of silently dropping', () => {
    const bases = new PathBases();
    for (let i = 0; i < 300; i += 1) bases.add(`/srv/r${i}`);
    expect(bases.overflowed).toBe(true);
    expect(bases.add('relative/dir')).toBe(false);
  });
});
