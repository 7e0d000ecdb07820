import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { jsonErrorAt } from '../../src-shared/json-position.js';

/*
 * Reading cards and traces from disk for the CLI and the conformance runner. A trace file may be
 * one JSON document (an object or an array) or JSON lines; a folder contributes its .json, .jsonl
 * and .ndjson files in name order. Every problem names the file (and line) it comes from.
 */

const MAX_INPUT_BYTES = 64 * 1024 * 1024;

export class InputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputError';
  }
}

/** One parsed JSON document and where it came from (`FILE` or `FILE:LINE`). */
export interface SourcedDocument {
  source: string;
  document: unknown;
}

const TRACE_EXTENSIONS = new Set(['.json', '.jsonl', '.ndjson']);

function readText(file: string): string {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (error) {
    throw new InputError(`${file}: cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (size > MAX_INPUT_BYTES) throw new InputError(`${file}: ${size} bytes; the maximum is ${MAX_INPUT_BYTES}`);
  return readFileSync(file, 'utf8');
}

export function readJsonFile(file: string): unknown {
  const text = readText(file);
  try {
    return JSON.parse(text);
  } catch {
    throw new InputError(`${file}: ${jsonErrorAt(text)}`);
  }
}

function jsonLines(file: string, text: string): SourcedDocument[] {
  const documents: SourcedDocument[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      documents.push({ source: `${file}:${index + 1}`, document: JSON.parse(line) });
    } catch (error) {
      throw new InputError(`${file}:${index + 1}: not valid JSON: ${(error as Error).message}`);
    }
  });
  return documents;
}

/** The documents of one trace file: JSON lines when the extension says so or the whole text is not one JSON value. */
export function readTraceDocuments(file: string): SourcedDocument[] {
  const text = readText(file);
  if (extname(file) === '.jsonl' || extname(file) === '.ndjson') return jsonLines(file, text);
  try {
    return [{ source: file, document: JSON.parse(text) }];
  } catch (error) {
    if (text.trim().split(/\r?\n/).length > 1) return jsonLines(file, text);
    throw new InputError(`${file}: not valid JSON: ${(error as Error).message}`);
  }
}

/** Files and folders as given: a folder stands for its trace files, in name order. */
export function expandTracePaths(paths: readonly string[]): string[] {
  return paths.flatMap((path) => {
    let isFolder: boolean;
    try {
      isFolder = statSync(path).isDirectory();
    } catch (error) {
      throw new InputError(`${path}: cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    if (!isFolder) return [path];
    const files = readdirSync(path)
      .filter((name) => TRACE_EXTENSIONS.has(extname(name)))
      .sort()
      .map((name) => join(path, name));
    if (files.length === 0) throw new InputError(`${path}: a folder with no .json, .jsonl or .ndjson files`);
    return files;
  });
}
