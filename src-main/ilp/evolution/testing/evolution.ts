import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { auditDataProblem, auditEvents, isAuditEventName } from '../../../../src-shared/audit/events.js';
import { steeringIn } from '../../composition/steering.js';
import type { ModelSource } from '../../agents/agent.js';
import { openEpisodicMemory, episode } from '../../memory/testing/memory.js';
import { SliceNavigator } from '../../navigator/navigator.js';
import { FakeModel, type FakeReply } from '../../testing/fake-model.js';
import { SliceEvolution } from '../evolution.js';
import { deployedAnchors, sliceVersionSealer } from '../slice-version-seals.js';

/** The slices shipped with the app: a learned slice must never replace one. */
export const SHIPPED_SLICES = fileURLToPath(new URL('../../../../resources/slices/', import.meta.url));

/** The runtime's steering screen (ilp/composition/steering.ts, wired in app/compose-ilp.ts). */
export const steeringScreen = steeringIn;

/** A ledger that keeps what is appended, refusing data the catalogue does not declare (as the real one does). */
function auditRecorder() {
  const entries: { event: string; data: Record<string, unknown> }[] = [];
  return {
    entries,
    of: (event: string) => entries.filter((e) => e.event === event).map((e) => e.data),
    append(event: string, data: unknown): void {
      if (!isAuditEventName(event)) throw new Error(`unknown audit event ${event}`);
      const problem = auditDataProblem(event, auditEvents[event], data);
      if (problem) throw new Error(problem);
      entries.push({ event, data: data as Record<string, unknown> });
    },
  };
}

/** What a model answers for a candidate that passes validation, unless the test says otherwise. */
export function distilled(overrides: Record<string, unknown> = {}): FakeReply {
  return {
    object: {
      title: 'Feedback keeps a system at its set point',
      concepts: ['set_point'],
      knowledge: 'Homeostasis is kept by negative feedback loops: a sensor measures a variable, a comparator finds the gap to a set point, and an effector acts to close it.\nDelays in the loop cause overshoot and oscillation.',
      rationale: 'Queries about homeostasis and feedback loops recurred and were answered well each time; the answers agreed on sensor, comparator and effector.',
      confidence: 0.86,
      ...overrides,
    },
    costUsd: 0.002,
  };
}

/**
 * An evolution engine over a real SQLite file in `dir`: episodic memory and the registry sealed
 * with in-memory keys (no keyring), a navigator over the shipped slices and a folder of the
 * home's own, a scripted model, the runtime's steering screen and a recording ledger.
 */
export function openEvolution(dir: string, options: { model?: ModelSource } = {}) {
  const opened = openEpisodicMemory(dir);
  const homeSlices = join(dir, 'slices');
  mkdirSync(homeSlices, { recursive: true });
  const navigator = new SliceNavigator([SHIPPED_SLICES, homeSlices]);
  const model = new FakeModel();
  const audit = auditRecorder();
  let tick = 0;
  const evolution = new SliceEvolution({
    db: opened.db,
    memory: opened.memory,
    model: options.model ?? (() => Promise.resolve(model)),
    screen: steeringScreen,
    sealer: sliceVersionSealer(opened.seals),
    anchors: deployedAnchors(opened.seals),
    audit,
    navigator,
    now: () => new Date(opened.clock.now + (tick += 1000)),
  });
  return { ...opened, evolution, navigator, model, audit, homeSlices };
}

/** `count` successful, confident episodes naming `concepts`, each its own query. */
export function seed(memory: ReturnType<typeof openEpisodicMemory>['memory'], concepts: string[], count: number, extra: { domains?: string[]; success?: boolean; confidence?: number; prefix?: string } = {}): void {
  for (let i = 0; i < count; i += 1) {
    memory.add(episode(`${extra.prefix ?? 'how does'} ${concepts.join(' and ')} work, case ${i}`, { concepts, domains: extra.domains ?? ['biology'], ...(extra.success !== undefined ? { success: extra.success } : {}), ...(extra.confidence !== undefined ? { confidence: extra.confidence } : {}) }));
  }
}

/** A slice file in a folder, as the owner (or anything writing the home) would put it there. */
export function writeSliceFile(folder: string, id: string, knowledge = 'Plain knowledge.'): string {
  const file = join(folder, `${id}.slice.yaml`);
  writeFileSync(file, ['metadata:', `  id: ${id}`, '  domain: biology', `  title: About ${id}`, '  concepts: [homeostasis]', '  connects_to: {}', '  tags: []', '  version: "1.0"', `knowledge: ${JSON.stringify(knowledge)}`, ''].join('\n'));
  return file;
}
