import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SliceNavigator } from '../navigator/navigator.js';
import { useTempDirs } from '../../testing/temp.js';
import { SliceEvolution, type DistillProgress, type EpisodeSource, type SliceSink } from './evolution.js';
import { sliceVersionSealer } from './slice-version-seals.js';
import { distilled, openEvolution, seed, SHIPPED_SLICES, steeringScreen, writeSliceFile } from './testing/evolution.js';

/*
 * Knowledge distillation end to end (spec 004 §4.3; docs/ilp.md "Knowledge distillation"):
 * episodes → pattern → candidate → validation → proposal → the owner deploys → the navigator
 * finds it at once → an update → rollbacks, each seen by the navigator at once; and the ledger
 * entries of each step.
 */

const tempDir = useTempDirs('silas-ilp-evolution-');
const CONCEPTS = ['allostasis', 'predictive_regulation'];
const ID = 'learned-allostasis-predictive_regulation';
const V1 = 'Allostasis is regulation by prediction: the body changes its set points ahead of a demand instead of only correcting after it.';
const V2 = `${V1}\nPredictive regulation fails when the forecast is wrong, which shows up as overshoot.`;

describe('SliceEvolution', () => {
  it('says which role has no model and how to set it up', async () => {
    const { evolution } = openEvolution(tempDir(), { model: () => Promise.resolve({ problem: 'no model is set up for the planner role' }) });
    await expect(evolution.distill()).rejects.toMatchObject({ code: 'E_CFG_INVALID', message: expect.stringMatching(/the planner role's model, which is not set up: .*`silas models set planner --provider … --model …`/) });
  });

  it('proposes, deploys, updates and rolls back a learned slice, the navigator seeing each at once', async () => {
    const { evolution, memory, model, navigator, audit } = openEvolution(tempDir());
    seed(memory, CONCEPTS, 3);
    seed(memory, ['homeostasis'], 2);
    model.reply(distilled({ knowledge: V1 }));
    const first = await evolution.distill();
    expect(first.patterns.map((p) => [p.key, p.frequency])).toEqual([['allostasis+predictive_regulation', 3]]);
    expect(first.proposed).toEqual([expect.objectContaining({ slice_id: ID, version: 1, kind: 'created', status: 'proposed', domain: 'biology', knowledge: `${V1}\n`, confidence: 0.86, constitutional_score: 1 })]);
    expect(first.proposed[0]!.concepts).toEqual(['allostasis', 'predictive_regulation', 'set_point']);
    expect(navigator.loadSlice(ID)).toBeNull();
    expect(evolution.proposed().map((c) => c.id)).toEqual([first.proposed[0]!.id]);
    expect(audit.of('ilp.slice_proposed')).toEqual([expect.objectContaining({ slice_id: ID, version: 1, kind: 'created', frequency: 3 })]);
    expect(audit.of('ilp.distillation')).toEqual([{ episodes_read: 5, untrusted_episodes: 0, min_frequency: 3, patterns: 1, proposed: 1, rejected: 0, skipped: 0, cost_usd: 0.002 }]);

    expect(evolution.deploy(first.proposed[0]!.id)).toEqual({ slice_id: ID, version: 1, superseded_version: null });
    expect(navigator.search('predictive regulation').map((h) => h.slice_id)).toContain(ID);
    expect(evolution.proposed()).toEqual([]);

    // Nothing new: the model is not asked again.
    const again = await evolution.distill();
    expect(again.skipped).toEqual([expect.objectContaining({ reason: expect.stringContaining('nothing new since') })]);
    expect(model.requests).toHaveLength(1);

    seed(memory, CONCEPTS, 2, { prefix: 'why does' });
    model.reply(distilled({ knowledge: V2 }));
    const update = await evolution.distill();
    expect(update.proposed).toEqual([expect.objectContaining({ slice_id: ID, version: 2, kind: 'updated' })]);
    expect((model.requests[1]!.messages[0] as { content: string }).content).toContain(`<current>\n${V1}`);
    expect(evolution.deploy(update.proposed[0]!.id)).toEqual({ slice_id: ID, version: 2, superseded_version: 1 });
    expect(navigator.loadSlice(ID)?.slice.knowledge).toBe(`${V2}\n`);
    expect(evolution.history(ID).map((v) => [v.version, v.kind, v.status, v.trusted])).toEqual([
      [2, 'updated', 'deployed', true],
      [1, 'created', 'superseded', true],
    ]);

    expect(evolution.rollback(ID)).toEqual({ slice_id: ID, version: 3, kind: 'rollback', restored_version: 1 });
    expect(navigator.loadSlice(ID)?.slice.knowledge).toBe(`${V1}\n`);
    expect(evolution.history(ID)[0]!.text).toBe(evolution.history(ID)[2]!.text);
    expect(evolution.rollback(ID, 2)).toEqual({ slice_id: ID, version: 4, kind: 'rollback', restored_version: 2 });
    expect(navigator.loadSlice(ID)?.slice.knowledge).toBe(`${V2}\n`);
    expect(() => evolution.rollback(ID, 9)).toThrow(/no trusted earlier deployed version 9/);
    expect(audit.of('ilp.slice_rolled_back')).toEqual([
      expect.objectContaining({ version: 3, kind: 'rollback', restored_version: 1, superseded_version: 2 }),
      expect.objectContaining({ version: 4, kind: 'rollback', restored_version: 2, superseded_version: 3 }),
    ]);
    expect(evolution.deployed()).toEqual({ slices: [expect.objectContaining({ slice_id: ID, version: 4, label: `slice-registry:${ID}@v4` })], untrusted: [] });
  });

  it('removes a created slice that is rolled back, and loads what is deployed into a new navigator at start', async () => {
    const { evolution, memory, model, navigator, audit, db, seals } = openEvolution(tempDir());
    seed(memory, CONCEPTS, 3);
    seed(memory, ['homeostasis', 'set_point'], 3, { prefix: 'what keeps' });
    model.reply(distilled({ knowledge: V1 }), distilled({ knowledge: 'Homeostasis holds a variable near its set point through negative feedback.' }));
    const { proposed } = await evolution.distill();
    expect(proposed.map((c) => c.slice_id)).toEqual([ID, 'learned-homeostasis-set_point']);
    for (const candidate of proposed) evolution.deploy(candidate.id);

    // What the runtime wires: the navigator as the sink, episodic memory as the source.
    const fresh = new SliceNavigator([SHIPPED_SLICES]);
    const sink: SliceSink = fresh;
    const source: EpisodeSource = memory;
    const restarted = new SliceEvolution({ db, memory: source, model: () => Promise.resolve(model), screen: steeringScreen, sealer: sliceVersionSealer(seals), audit, navigator: sink });
    expect(restarted.restoreDeployed()).toEqual({ loaded: [ID, 'learned-homeostasis-set_point'], refused: [], untrusted: [] });
    expect(fresh.loadSlice(ID)?.file).toBe(`slice-registry:${ID}@v1`);

    expect(evolution.rollback(ID)).toEqual({ slice_id: ID, version: 2, kind: 'removed', restored_version: null });
    expect(navigator.loadSlice(ID)).toBeNull();
    expect(navigator.search('predictive regulation').map((h) => h.slice_id)).not.toContain(ID);
    expect(audit.of('ilp.slice_rolled_back')).toEqual([{ slice_id: ID, version: 2, kind: 'removed', restored_version: null, superseded_version: 1, sha256: null }]);
    expect(evolution.deployed().slices.map((s) => s.slice_id)).toEqual(['learned-homeostasis-set_point']);
    // Rolling back the removal brings version 1 back.
    expect(evolution.rollback(ID)).toMatchObject({ version: 3, kind: 'rollback', restored_version: 1 });
    expect(navigator.loadSlice(ID)?.slice.knowledge).toBe(`${V1}\n`);
  });

  it('keeps a declined proposal out of the navigator and does not ask again on the same evidence', async () => {
    const { evolution, memory, model, navigator, audit } = openEvolution(tempDir());
    seed(memory, CONCEPTS, 3);
    model.reply(distilled());
    const [candidate] = (await evolution.distill()).proposed;
    expect(evolution.decline(candidate!.id, 'too thin')).toMatchObject({ status: 'declined', reasons: ['declined: too thin'] });
    expect(() => evolution.deploy(candidate!.id)).toThrow(/is declined, not waiting for a decision/);
    expect(() => evolution.rollback(ID)).toThrow(/has no deployed version to roll back/);
    expect(navigator.loadSlice(ID)).toBeNull();
    expect(audit.of('ilp.slice_declined')).toEqual([expect.objectContaining({ slice_id: ID, version: 1, reason: 'too thin' })]);
    expect((await evolution.distill()).skipped).toEqual([expect.objectContaining({ reason: expect.stringContaining('declined on the same evidence') })]);
    expect(model.requests).toHaveLength(1);
  });

  it('never takes the id of a slice it did not write, and never uses an id the model chose', async () => {
    const { evolution, memory, model, homeSlices, navigator } = openEvolution(tempDir());
    seed(memory, CONCEPTS, 3);
    writeSliceFile(homeSlices, ID);
    navigator.reload();
    const held = await evolution.distill();
    expect(held.skipped).toEqual([expect.objectContaining({ reason: expect.stringMatching(/held by .*\.slice\.yaml, a slice the evolution loop did not write; it is never overwritten/) })]);
    expect(model.requests).toHaveLength(0);

    const other = openEvolution(tempDir());
    seed(other.memory, ['tide_prediction', 'harmonics'], 3);
    other.model.reply(distilled({ id: '../../etc', domain: '../../etc', concepts: ['../../etc', '/etc/passwd'] }));
    const { proposed } = await other.evolution.distill();
    expect(proposed.map((c) => [c.slice_id, c.domain])).toEqual([['learned-harmonics-tide_prediction', 'biology']]);
    expect(proposed[0]!.text).not.toContain('../');
    expect(proposed[0]!.concepts).toEqual(['harmonics', 'tide_prediction', 'etc', 'etc_passwd']);
    expect(readdirSync(other.homeSlices)).toEqual([]);
  });

  it('honours the signal: nothing is proposed once it is aborted', async () => {
    const { evolution, memory, model } = openEvolution(tempDir());
    seed(memory, CONCEPTS, 3);
    const before = new AbortController();
    before.abort();
    await expect(evolution.distill({ signal: before.signal })).rejects.toThrow(/aborted/);
    const during = new AbortController();
    const progress: DistillProgress[] = [];
    model.reply(distilled());
    const onProgress = (p: DistillProgress) => {
      progress.push(p);
      if (p.stage === 'candidate') during.abort();
    };
    await expect(evolution.distill({ signal: during.signal, onProgress })).rejects.toThrow(/aborted/);
    expect(progress).toEqual([
      { stage: 'patterns', done: 0, total: 1 },
      { stage: 'candidate', done: 0, total: 1, pattern: 'allostasis+predictive_regulation' },
    ]);
    expect(evolution.proposed()).toEqual([]);
    expect(evolution.history(ID)).toEqual([]);
  });
});
