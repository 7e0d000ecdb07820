import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src-shared/canonical.js';
import { toolDefinitionHash } from './definition-hash.js';
import { toolSchemaHash } from './schema-hash.js';

const plain = {
  name: 'read_file',
  description: 'Read a file',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

const full = {
  ...plain,
  title: 'Read file',
  outputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  annotations: { readOnlyHint: true, title: 'Read' },
  _meta: { 'example.com/version': 2 },
};

describe('toolDefinitionHash', () => {
  it('never equals the §3.5.4 hash, even for a plain tool, so a pin written before is recognised and widened', () => {
    expect(toolDefinitionHash(plain)).not.toBe(toolSchemaHash(plain));
    expect(toolDefinitionHash(plain)).toBe(`sha256:${createHash('sha256').update(canonicalJson({ schema: toolSchemaHash(plain) })).digest('hex')}`);
    expect(toolDefinitionHash({ name: 'ping', description: '' })).not.toBe(toolDefinitionHash({ name: 'ping' }));
  });

  it('known answer: sha256 of RFC 8785 JSON of {schema, title, outputSchema, annotations, _meta, instructions}', () => {
    const canonical = canonicalJson({
      schema: toolSchemaHash(plain),
      title: full.title,
      outputSchema: full.outputSchema,
      annotations: full.annotations,
      _meta: full._meta,
      instructions: 'Use absolute paths.',
    });
    expect(canonical.startsWith('{"_meta":')).toBe(true);
    expect(toolDefinitionHash(full, 'Use absolute paths.')).toBe(`sha256:${createHash('sha256').update(canonical, 'utf8').digest('hex')}`);
  });

  it('leaves absent members out, and hashes a member that is present even when empty', () => {
    const titled = { ...plain, title: 'Read' };
    expect(toolDefinitionHash(titled)).toBe(`sha256:${createHash('sha256').update(canonicalJson({ schema: toolSchemaHash(plain), title: 'Read' })).digest('hex')}`);
    expect(toolDefinitionHash(plain, '')).not.toBe(toolDefinitionHash(plain));
    expect(toolDefinitionHash({ ...plain, title: undefined })).toBe(toolDefinitionHash(plain));
    expect(toolDefinitionHash({ ...plain, annotations: {} })).not.toBe(toolDefinitionHash(plain));
  });

  it('is stable under key order at every depth', () => {
    const reordered = {
      _meta: { 'example.com/version': 2 },
      annotations: { title: 'Read', readOnlyHint: true },
      outputSchema: { properties: { text: { type: 'string' } }, type: 'object' },
      title: 'Read file',
      inputSchema: { required: ['path'], properties: { path: { type: 'string' } }, type: 'object' },
      description: 'Read a file',
      name: 'read_file',
    };
    expect(toolDefinitionHash(reordered, 'x')).toBe(toolDefinitionHash(full, 'x'));
  });

  it('changes when any field the agent reads changes', () => {
    const base = toolDefinitionHash(full, 'Use absolute paths.');
    const variants: [string, Record<string, unknown>, string | undefined][] = [
      ['name', { ...full, name: 'read_files' }, 'Use absolute paths.'],
      ['description', { ...full, description: 'Read a file.' }, 'Use absolute paths.'],
      ['inputSchema', { ...full, inputSchema: { type: 'object' } }, 'Use absolute paths.'],
      ['title', { ...full, title: 'Read a file' }, 'Use absolute paths.'],
      ['outputSchema', { ...full, outputSchema: { type: 'object', properties: { text: { type: 'string', description: 'x' } } } }, 'Use absolute paths.'],
      ['annotations', { ...full, annotations: { readOnlyHint: false, title: 'Read' } }, 'Use absolute paths.'],
      ['_meta', { ...full, _meta: { 'example.com/version': 3 } }, 'Use absolute paths.'],
      ['instructions', full, 'Use relative paths.'],
      ['instructions removed', full, undefined],
      ['title removed', { ...plain, outputSchema: full.outputSchema, annotations: full.annotations, _meta: full._meta }, 'Use absolute paths.'],
    ];
    const hashes = new Set([base]);
    for (const [what, tool, instructions] of variants) {
      const hash = toolDefinitionHash(tool, instructions);
      expect(hash, what).not.toBe(base);
      hashes.add(hash);
    }
    expect(hashes.size).toBe(variants.length + 1);
  });

  it('never equals a plain hash once an extra member is present', () => {
    expect(toolDefinitionHash(plain, 'x')).not.toBe(toolSchemaHash(plain));
    expect(toolDefinitionHash(plain, 'x')).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});
