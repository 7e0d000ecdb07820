import { readFileSync } from 'node:fs';
import type { PolicyTemplateEntry, PolicyTemplateSource } from '../library/policy-library.js';

/*
 * The gallery of starting policies: one AgentPolicy per common kind of MCP server, each with the
 * test suite that shows what it allows, asks and blocks (docs/policy-templates.md). The YAML and
 * JSON stay separate files beside this module, so that a person reads, copies and tests them as
 * they are (`silas policy test --policy X.yaml --suite X.suite.json`) and the comments in the YAML
 * reach them unchanged.
 *
 * They are found relative to this module. Under tsx and vitest that is this folder. In the built
 * CLI (out/cli), scripts/build-cli.js rewrites each source file's `import.meta.url` to the URL of
 * that source file, so the same lookup still lands here. The CLI always runs from the checkout,
 * so the files are there. In the desktop bundle (electron-vite) this module is part of
 * out/main/index.js, and a plugin in electron.vite.config.ts emits the files beside it.
 */

type PolicyTemplateId = 'default' | 'filesystem-read-only' | 'filesystem-ask-writes' | 'shell-with-approvals' | 'github' | 'browser-automation';

export interface PolicyTemplate {
  id: PolicyTemplateId;
  /** A short human title for a list. */
  title: string;
  /** The MCP server (or kind of server) the policy is written for, with the package names whose tool names it uses. */
  server: string;
  /** What it allows, asks and blocks, in one or two sentences. */
  summary: string;
  /** The policy's file name, beside this module. */
  policyFile: string;
  /** Its test suite's file name (`POLICY.suite.json`), beside this module. */
  suiteFile: string;
}

export const POLICY_TEMPLATES: readonly PolicyTemplate[] = [
  {
    id: 'default',
    title: 'Any server, threat detection on',
    server: 'Any MCP server no other template fits (list its tools)',
    summary:
      'The tools you list are allowed and every other tool refused. Secrets folders are refused even for reading, keys and tokens are refused in what the agent sends, and every threat detector is on: poisoned tool definitions wait for you, injected instructions in answers are withheld, disguised commands and dangerous chains of calls are refused.',
    policyFile: 'default.yaml',
    suiteFile: 'default.suite.json',
  },
  {
    id: 'filesystem-read-only',
    title: 'Filesystem, read-only',
    server: 'A filesystem server (@modelcontextprotocol/server-filesystem)',
    summary:
      'Reads, listings and searches are allowed (recursive trees at most 10 a minute). Every write, edit, move and new folder is blocked, and secrets (~/.ssh, ~/.aws, .env, *.pem…) are blocked even for reading. Secrets in files read are redacted.',
    policyFile: 'filesystem-read-only.yaml',
    suiteFile: 'filesystem-read-only.suite.json',
  },
  {
    id: 'filesystem-ask-writes',
    title: 'Filesystem, approve every change',
    server: 'A filesystem server (@modelcontextprotocol/server-filesystem)',
    summary:
      'Reads are allowed. write_file, edit_file, create_directory and move_file ask (at most 20 cards a minute each). Secrets, shell start-up files and git hooks are blocked even with approval, and a write carrying a key or token is refused by DLP.',
    policyFile: 'filesystem-ask-writes.yaml',
    suiteFile: 'filesystem-ask-writes.suite.json',
  },
  {
    id: 'shell-with-approvals',
    title: 'Shell commands with approvals',
    server: 'A command-running server (mcp-server-commands: run_command)',
    summary:
      'Every command asks (at most 30 a minute), and only one plain command of a listed program can be asked about: no pipes, chains, substitutions, redirections or sudo. rm -rf /, curl … | sh and commands naming secrets folders are refused without a card.',
    policyFile: 'shell-with-approvals.yaml',
    suiteFile: 'shell-with-approvals.suite.json',
  },
  {
    id: 'github',
    title: 'GitHub',
    server: 'The GitHub MCP server (github/github-mcp-server; @modelcontextprotocol/server-github)',
    summary:
      'Reading code, issues and pull requests is allowed. Issues, comments, branches, commits, pull requests and merges ask, each with an hourly rate limit, and commits go only to topic branches. Gists and unlisted tools are blocked, and tokens are refused in writes and redacted in reads.',
    policyFile: 'github.yaml',
    suiteFile: 'github.suite.json',
  },
  {
    id: 'browser-automation',
    title: 'Browser automation',
    server: 'A browser server (Playwright MCP @playwright/mcp; @modelcontextprotocol/server-puppeteer)',
    summary:
      'Snapshots and screenshots are allowed, and navigation is allowed to listed sites only. Clicks, typing, forms and key presses ask. Page JavaScript, uploads and browser installs are blocked, and DLP refuses card numbers, password fields and keys in what the agent types.',
    policyFile: 'browser-automation.yaml',
    suiteFile: 'browser-automation.suite.json',
  },
];

export interface TemplateText {
  policyText: string;
  suiteText: string;
}

/** The template with this id, or undefined. */
export function findTemplate(id: string): PolicyTemplate | undefined {
  return POLICY_TEMPLATES.find((template) => template.id === id);
}

/** The policy and suite text of a template, read from the files beside this module. Throws for an unknown id. */
export function readTemplate(id: string): TemplateText {
  const template = findTemplate(id);
  if (!template) throw new Error(`unknown policy template "${id}"; the templates are ${POLICY_TEMPLATES.map((t) => t.id).join(', ')}`);
  return { policyText: readBeside(template.policyFile), suiteText: readBeside(template.suiteFile) };
}

function readBeside(file: string): string {
  return readFileSync(new URL(`./${file}`, import.meta.url), 'utf8');
}

/** The gallery as the policy library reads it: the templates beside this module, read when asked. */
export const templateGallery: PolicyTemplateSource = {
  list(): PolicyTemplateEntry[] {
    return POLICY_TEMPLATES.map((template) => {
      const { policyText, suiteText } = readTemplate(template.id);
      const calls = (JSON.parse(suiteText) as { calls?: unknown[] }).calls;
      return { id: template.id, title: template.title, server: template.server, summary: template.summary, policyText, cases: Array.isArray(calls) ? calls.length : 0 };
    });
  },
  read: (id) => (findTemplate(id) ? readTemplate(id) : undefined),
};
