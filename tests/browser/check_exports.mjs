// Reads perfx exports with independent readers and checks them against each other
// and against the expected sample count:
//   pprof      - decoded by the npm `pprof-format` reader (gunzip + protobuf)
//   folded     - counts sum to the samples; the heaviest stack
//   speedscope - the file-format schema's required fields and index ranges
//   firefox    - the Gecko profile format (meta.version, thread tables, index ranges)
//   json       - perfx's schema (docs/exports.md)
// usage: node check_exports.mjs --prefix OUT/prof --samples N [--hot FUNCTION]
//        (reads OUT/prof.{pprof,folded,speedscope.json,firefox.json,json})
import fs from 'node:fs';
import zlib from 'node:zlib';
import { createRequire } from 'node:module';
import { check, args } from './lib.mjs';

const require = createRequire(import.meta.url);
const { Profile } = require('pprof-format');
const a = args(process.argv.slice(2));
const prefix = a.prefix;
const samples = Number(a.samples);
check(Number.isFinite(samples) && samples > 0, `expecting ${samples} samples`);

// ---- pprof
{
  const buf = fs.readFileSync(`${prefix}.pprof`);
  check(buf[0] === 0x1f && buf[1] === 0x8b, 'pprof is gzip-compressed');
  const p = Profile.decode(zlib.gunzipSync(buf));
  const st = p.stringTable.strings;
  check(st[0] === '', 'pprof string_table[0] is ""');
  const types = p.sampleType.map((t) => `${st[Number(t.type)]}/${st[Number(t.unit)]}`);
  check(types[0] === 'samples/count', `pprof sample types ${types.join(', ')}`);
  let total = 0;
  for (const s of p.sample) total += Number(s.value[0]);
  check(total === samples, `pprof sample total ${total} == ${samples}`);
  const locIds = new Set(p.location.map((l) => Number(l.id)));
  const fnIds = new Set(p.function.map((f) => Number(f.id)));
  const mapIds = new Set(p.mapping.map((m) => Number(m.id)));
  check(p.sample.every((s) => s.locationId.every((id) => locIds.has(Number(id)))), 'pprof sample locations exist');
  check(p.location.every((l) => l.line.every((ln) => fnIds.has(Number(ln.functionId)))), 'pprof location functions exist');
  check(p.location.every((l) => Number(l.mappingId) === 0 || mapIds.has(Number(l.mappingId))), 'pprof location mappings exist');
  const labels = new Set(p.sample.flatMap((s) => s.label.map((l) => st[Number(l.key)])));
  check(labels.has('pid') && labels.has('tid') && labels.has('comm'), 'pprof labels pid, tid, comm');
  check(p.mapping.some((m) => st[Number(m.buildId)].length > 0), 'pprof mappings carry build-ids');
  // Mappings carry their memory range and file offset; every location's address lies in
  // its mapping; source file and line are there by default (docs/exports.md).
  check(p.mapping.every((m) => Number(m.memoryLimit) > Number(m.memoryStart)), 'pprof mappings have memory ranges');
  check(p.mapping.some((m) => Number(m.fileOffset) > 0), 'pprof mappings carry file offsets');
  const mapById = new Map(p.mapping.map((m) => [Number(m.id), m]));
  check(p.location.every((l) => {
    const m = mapById.get(Number(l.mappingId));
    return !m || (Number(l.address) >= Number(m.memoryStart) && Number(l.address) < Number(m.memoryLimit));
  }), 'pprof location addresses lie in their mappings');
  check(p.location.some((l) => l.line.some((ln) => Number(ln.line) > 0)), 'pprof locations have line numbers');
  check(p.function.some((f) => st[Number(f.filename)].endsWith('.c')), 'pprof functions have source files');
  check(p.mapping.some((m) => m.hasLineNumbers && m.hasFilenames), 'pprof mappings say has_line_numbers');
  if (a.hot) {
    // Self samples per leaf function: the hot function must be the heaviest.
    const fnName = new Map(p.function.map((f) => [Number(f.id), st[Number(f.name)]]));
    const locFn = new Map(p.location.map((l) => [Number(l.id), fnName.get(Number(l.line[0].functionId))]));
    const self = new Map();
    for (const s of p.sample) {
      const leaf = locFn.get(Number(s.locationId[0]));
      self.set(leaf, (self.get(leaf) || 0) + Number(s.value[0]));
    }
    const top = [...self.entries()].sort((x, y) => y[1] - x[1])[0];
    check(top[0] === a.hot, `pprof hottest leaf function is ${top[0]} (${top[1]} samples)`);
  }
}

// ---- folded
{
  const lines = fs.readFileSync(`${prefix}.folded`, 'utf8').split('\n').filter((l) => l);
  let total = 0;
  let heaviest = ['', 0];
  for (const l of lines) {
    const m = /^(.*) (\d+)$/.exec(l);
    if (m === null) check(false, `folded line format: ${l}`);
    const n = Number(m[2]);
    total += n;
    if (n > heaviest[1]) heaviest = [m[1], n];
  }
  check(total === samples, `folded counts sum ${total} == ${samples}`);
  if (a.hot) {
    const leaf = heaviest[0].split(';').pop();
    check(leaf === a.hot, `heaviest folded stack ends in ${leaf}: ${heaviest[0]} ${heaviest[1]}`);
  }
}

// ---- speedscope
{
  const j = JSON.parse(fs.readFileSync(`${prefix}.speedscope.json`, 'utf8'));
  check(j.$schema === 'https://www.speedscope.app/file-format-schema.json', 'speedscope $schema');
  check(Array.isArray(j.shared.frames) && j.shared.frames.every((f) => typeof f.name === 'string'), 'speedscope shared.frames');
  check(j.profiles.length > 0 && j.profiles.every((p) => p.type === 'sampled'), `speedscope ${j.profiles.length} sampled profiles`);
  for (const p of j.profiles) {
    check(p.samples.length === p.weights.length, `speedscope ${p.name}: samples and weights align`);
    const sum = p.weights.reduce((x, y) => x + y, 0);
    if (sum !== p.endValue - p.startValue) check(false, `speedscope ${p.name}: weights sum to endValue`);
    if (!p.samples.every((s) => s.every((f) => f >= 0 && f < j.shared.frames.length))) {
      check(false, `speedscope ${p.name}: frame indices in range`);
    }
    if (!['none', 'nanoseconds', 'microseconds', 'milliseconds', 'seconds', 'bytes'].includes(p.unit)) {
      check(false, `speedscope unit ${p.unit}`);
    }
  }
  check(true, 'speedscope profiles: weights and frame indices consistent');
}

// ---- firefox (Gecko profile format)
{
  const j = JSON.parse(fs.readFileSync(`${prefix}.firefox.json`, 'utf8'));
  check(j.meta.version === 24 && typeof j.meta.interval === 'number' && Array.isArray(j.meta.categories),
    'firefox meta (version 24, interval, categories)');
  check(Array.isArray(j.threads) && j.threads.length > 0, `firefox ${j.threads.length} threads`);
  let total = 0;
  for (const t of j.threads) {
    const nStr = t.stringTable.length;
    const frames = t.frameTable.data;
    const stacks = t.stackTable.data;
    const fs_ = t.frameTable.schema;
    const ok = frames.every((f) => f[fs_.location] < nStr && f[fs_.category] < j.meta.categories.length) &&
      stacks.every((s, i) => (s[0] === null || (s[0] >= 0 && s[0] < i)) && s[1] >= 0 && s[1] < frames.length) &&
      t.samples.data.every((s, i, arr) => (s[0] === null || s[0] < stacks.length) && (i === 0 || arr[i - 1][1] <= s[1]));
    if (!ok) check(false, `firefox thread ${t.name} ${t.tid}: indices in range, times ordered`);
    check(t.samples.schema.stack === 0 && t.samples.schema.time === 1 && t.stackTable.schema.prefix === 0, `firefox thread ${t.name}/${t.tid} schemas`);
    total += t.samples.data.length;
  }
  check(total === samples, `firefox samples ${total} == ${samples}`);
}

// ---- perfx json
{
  const j = JSON.parse(fs.readFileSync(`${prefix}.json`, 'utf8'));
  check(j.format === 'perfx-profile' && j.version === 1, 'json format/version');
  const n = j.samples.stack.length;
  check(n === samples, `json samples ${n} == ${samples}`);
  check(['thread', 'cpu', 'time_ns', 'period', 'event'].every((k) => j.samples[k].length === n), 'json sample columns align');
  check(j.samples.stack.every((s) => s < j.stacks.length) && j.stacks.every((s) => s.every((f) => f < j.frames.length)), 'json indices in range');
  const evTotal = j.events.reduce((x, e) => x + e.samples, 0);
  check(evTotal === samples, 'json event sample counts');
  if (a.hot) {
    const top = j.functions[0].rows[0];
    check(top.function === a.hot, `json report: top self function ${top.function} ${top.self_percent}%`);
  }
}
console.log(process.exitCode ? 'FAILED' : 'all export checks passed');
