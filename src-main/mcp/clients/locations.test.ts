import { describe, expect, it } from 'vitest';
import { CLIENTS, configLocation, currentLocationContext, findClient, knownClientNames, type ClientId, type LocationContext } from './locations.js';

const linux: LocationContext = { platform: 'linux', env: {}, home: '/home/alex' };
const darwin: LocationContext = { platform: 'darwin', env: {}, home: '/Users/alex' };
const win32: LocationContext = { platform: 'win32', env: { APPDATA: 'C:\\Users\\alex\\AppData\\Roaming' }, home: 'C:\\Users\\alex' };

function all(ctx: LocationContext): Record<ClientId, string> {
  return Object.fromEntries(CLIENTS.map((c) => [c.id, configLocation(c.id, ctx)])) as Record<ClientId, string>;
}

describe('client configuration locations', () => {
  it('on Linux: XDG config dir for Claude Desktop and VS Code, dot directories for Cursor and Windsurf', () => {
    expect(all(linux)).toEqual({
      'claude-desktop': '/home/alex/.config/Claude/claude_desktop_config.json',
      cursor: '/home/alex/.cursor/mcp.json',
      vscode: '/home/alex/.config/Code/User/mcp.json',
      windsurf: '/home/alex/.codeium/windsurf/mcp_config.json',
    });
  });

  it('on Linux honours an absolute XDG_CONFIG_HOME and ignores a relative one', () => {
    expect(configLocation('claude-desktop', { ...linux, env: { XDG_CONFIG_HOME: '/cfg' } })).toBe('/cfg/Claude/claude_desktop_config.json');
    expect(configLocation('vscode', { ...linux, env: { XDG_CONFIG_HOME: '/cfg' } })).toBe('/cfg/Code/User/mcp.json');
    expect(configLocation('claude-desktop', { ...linux, env: { XDG_CONFIG_HOME: 'relative' } })).toBe('/home/alex/.config/Claude/claude_desktop_config.json');
  });

  it('on macOS: ~/Library/Application Support', () => {
    expect(all(darwin)).toEqual({
      'claude-desktop': '/Users/alex/Library/Application Support/Claude/claude_desktop_config.json',
      cursor: '/Users/alex/.cursor/mcp.json',
      vscode: '/Users/alex/Library/Application Support/Code/User/mcp.json',
      windsurf: '/Users/alex/.codeium/windsurf/mcp_config.json',
    });
  });

  it('on Windows: %APPDATA%, or AppData\\Roaming under the profile when APPDATA is unset', () => {
    expect(all(win32)).toEqual({
      'claude-desktop': 'C:\\Users\\alex\\AppData\\Roaming\\Claude\\claude_desktop_config.json',
      cursor: 'C:\\Users\\alex\\.cursor\\mcp.json',
      vscode: 'C:\\Users\\alex\\AppData\\Roaming\\Code\\User\\mcp.json',
      windsurf: 'C:\\Users\\alex\\.codeium\\windsurf\\mcp_config.json',
    });
    expect(configLocation('claude-desktop', { ...win32, env: {}, home: 'D:\\Profiles\\sam' })).toBe('D:\\Profiles\\sam\\AppData\\Roaming\\Claude\\claude_desktop_config.json');
  });

  it('takes the home directory from HOME, or USERPROFILE on Windows', () => {
    expect(currentLocationContext({ HOME: '/tmp/h' }, 'linux').home).toBe('/tmp/h');
    expect(currentLocationContext({ USERPROFILE: 'C:\\Users\\x', HOME: '/ignored' }, 'win32').home).toBe('C:\\Users\\x');
  });

  it('finds clients by id or alias, case-insensitively', () => {
    expect(findClient('claude')?.id).toBe('claude-desktop');
    expect(findClient('Claude-Desktop')?.id).toBe('claude-desktop');
    expect(findClient('code')?.id).toBe('vscode');
    expect(findClient('emacs')).toBeUndefined();
    expect(knownClientNames()).toBe('claude-desktop (or claude), cursor, vscode (or code), windsurf');
  });
});
