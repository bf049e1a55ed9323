// Checks that a pprof file has a Location whose Line entries are an inline chain:
// INNER (the inlined callee) first, OUTER (the function it was inlined into) last.
// usage: node pprof_inline.mjs FILE.pprof INNER OUTER
import fs from 'node:fs';
import zlib from 'node:zlib';
import { createRequire } from 'node:module';
import { check } from './lib.mjs';

const require = createRequire(import.meta.url);
const { Profile } = require('pprof-format');
const [file, inner, outer] = process.argv.slice(2);
const p = Profile.decode(zlib.gunzipSync(fs.readFileSync(file)));
const st = p.stringTable.strings;
const fn = new Map(p.function.map((f) => [Number(f.id), st[Number(f.name)]]));
const chains = p.location.filter((l) => l.line.length > 1)
  .map((l) => l.line.map((x) => fn.get(Number(x.functionId))));
console.log('inline chains:', JSON.stringify(chains));
check(chains.some((c) => c[0] === inner && c[c.length - 1] === outer),
  `a Location lists ${inner} (inlined) before ${outer}`);
// The samples through that location are counted: the inlined function is hot.
const locIds = new Set(p.location.filter((l) => l.line.length > 1 &&
  fn.get(Number(l.line[0].functionId)) === inner).map((l) => Number(l.id)));
let hot = 0;
let total = 0;
for (const s of p.sample) {
  total += Number(s.value[0]);
  if (locIds.has(Number(s.locationId[0]))) hot += Number(s.value[0]);
}
check(hot > total / 2, `${hot} of ${total} samples land in the inlined ${inner}`);
