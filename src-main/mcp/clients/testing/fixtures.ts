import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A Claude Desktop configuration as people have them: 2-space indent, env, a remote entry, unicode. */
export const CLAUDE_CONFIG = `{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-filesystem",
        "/Users/alex/Desktop",
        "/Users/alex/Downloads"
      ]
    },
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {
        "GITHUB_PERSONAL_ACCESS_TOKEN": "<YOUR_TOKEN>"
      }
    },
    "mémoire 📝": {
      "command": "/usr/local/bin/memory-server",
      "env": {
        "MEMORY_FILE_PATH": "/Users/alex/mémoire.json"
      }
    },
    "sqlite": {
      "command": "uvx",
      "args": ["mcp-server-sqlite", "--db-path", "C:\\\\data\\\\test.db"]
    },
    "linear": {
      "type": "http",
      "url": "https://mcp.linear.app/mcp"
    }
  },
  "globalShortcut": "Ctrl+Space"
}
`;

export const STDIO_SERVERS = ['filesystem', 'github', 'mémoire 📝', 'sqlite'];

export const POLICY_YAML = `apiVersion: aip.io/v1alpha2
kind: AgentPolicy
metadata:
  name: test-policy
spec:
  mode: enforce
  allowed_tools:
    - read_file
`;

export function writePolicy(dir: string, name = 'policy.yaml'): string {
  const path = join(dir, name);
  writeFileSync(path, POLICY_YAML);
  return path;
}
