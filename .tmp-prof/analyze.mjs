import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = new Map();
for (let i = 0; i < p.samples.length; i++) dt.set(p.samples[i], (dt.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
let total = 0;
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const incl = new Map();
for (const n of p.nodes) {
  const t = dt.get(n.id) ?? 0; total += t;
  const cf = n.callFrame; const key = `${cf.functionName || '(anon)'} ${cf.url.split('/').slice(-2).join('/')}:${cf.lineNumber}`;
  self.set(key, (self.get(key) ?? 0) + t);
  const seen = new Set();
  for (let id = n.id; id !== undefined; id = parent.get(id)) {
    const f = byId.get(id).callFrame; const k = `${f.functionName || '(anon)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber}`;
    if (seen.has(k)) continue; seen.add(k);
    incl.set(k, (incl.get(k) ?? 0) + t);
  }
}
const show = (m, n) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).forEach(([k, v]) => console.log((100 * v / total).toFixed(1).padStart(5), k));
console.log('total ms', total / 1000); console.log('--- self'); show(self, 35); console.log('--- inclusive'); show(incl, 60);
