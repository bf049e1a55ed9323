// perfx interactive flame graph: vanilla JS, no dependencies, no network.
// Data (script#perfx-data): {title, subtitle, unit, names[], kinds[], stacks[], diff}
//   stacks[i] = [count, nameIndex...] root first; diff: [oldCount, newCount, nameIndex...]
(function () {
  'use strict';
  const D = JSON.parse(document.getElementById('perfx-data').textContent);
  const KIND_NAMES = ['user', 'kernel', 'jit', 'unknown', 'comm', 'off-cpu', 'run-queue'];
  const OFF_CPU = 5, RUN_QUEUE = 6;  // kinds of the "[off-cpu]" / "[run-queue]" leaves
  const ROW = 17;
  const chart = document.getElementById('chart');
  const tooltip = document.getElementById('tooltip');
  const details = document.getElementById('details');
  const matchedEl = document.getElementById('matched');
  const searchEl = document.getElementById('search');
  const state = { inverted: false, icicle: !!D.icicle, zoom: null, regex: null };
  let root = null;

  function build(inverted) {
    const r = { n: -1, v: 0, o: 0, f: 0, q: 0, p: null, d: 0, c: new Map(), kids: [] };
    const off = D.diff ? 2 : 1;
    for (const s of D.stacks) {
      const v = D.diff ? s[1] : s[0];
      const o = D.diff ? s[0] : 0;
      const len = s.length - off;
      const leaf = len > 0 ? D.kinds[s[s.length - 1]] : -1;
      const f = leaf === OFF_CPU ? v : 0;  // blocked weight
      const q = leaf === RUN_QUEUE ? v : 0;  // run-queue weight
      let node = r;
      r.v += v; r.o += o; r.f += f; r.q += q;
      for (let i = 0; i < len; i++) {
        const name = s[off + (inverted ? len - 1 - i : i)];
        let ch = node.c.get(name);
        if (!ch) {
          ch = { n: name, v: 0, o: 0, f: 0, q: 0, p: node, d: node.d + 1, c: new Map(), kids: [] };
          node.c.set(name, ch);
        }
        ch.v += v; ch.o += o; ch.f += f; ch.q += q;
        node = ch;
      }
    }
    (function sort(node) {
      node.kids = Array.from(node.c.values()).sort((a, b) =>
        D.names[a.n] < D.names[b.n] ? -1 : D.names[a.n] > D.names[b.n] ? 1 : 0);
      node.c = null;
      for (const k of node.kids) sort(k);
    })(r);
    return r;
  }

  function hash(str) {  // deterministic per name, like flamegraph.pl's --hash
    let h = 0;
    for (let i = 0; i < str.length; i++) h = (h * 31 + str.charCodeAt(i)) >>> 0;
    return (h % 1000) / 1000;
  }

  function color(node) {
    if (node.n < 0) return 'rgb(200,200,200)';
    if (D.diff) {
      const t = Math.min(1, Math.abs(delta(node)) / (root.maxDelta || 1));
      const c = Math.round(255 * (1 - t * 0.85));
      if (delta(node) > 0) return `rgb(255,${c},${c})`;
      if (delta(node) < 0) return `rgb(${c},${c},255)`;
      return 'rgb(245,245,245)';
    }
    const h = hash(D.names[node.n]);
    // Mostly off-CPU time below this frame: blues (FlameGraph's --color=io).
    if (2 * node.f > node.v) return `rgb(${Math.round(60 + 40 * h)},${Math.round(90 + 50 * h)},${Math.round(200 + 55 * h)})`;
    // Mostly waiting for a CPU after preemption: purples.
    if (2 * node.q > node.v) return `rgb(${Math.round(160 + 40 * h)},${Math.round(110 + 40 * h)},${Math.round(200 + 55 * h)})`;
    switch (D.kinds[node.n]) {
      // Palette of FlameGraph's --color=java: user red, kernel orange, JIT green.
      case 0: return `rgb(${Math.round(200 + 55 * h)},${Math.round(50 + 80 * h)},${Math.round(50 + 80 * h)})`;  // user: red
      case 1: return `rgb(${Math.round(190 + 65 * h)},${Math.round(90 + 65 * h)},0)`;  // kernel: orange
      case 2: return `rgb(${Math.round(50 + 60 * h)},${Math.round(170 + 60 * h)},${Math.round(50 + 50 * h)})`;  // jit: green
      case 4: return `rgb(${Math.round(120 + 40 * h)},${Math.round(160 + 40 * h)},${Math.round(220 + 30 * h)})`;  // comm: blue
      default: return `rgb(${Math.round(170 + 30 * h)},${Math.round(170 + 30 * h)},${Math.round(170 + 30 * h)})`;  // unknown: grey
    }
  }

  function delta(node) {  // diff: change of this path's share of all samples
    const nv = root.v ? node.v / root.v : 0;
    const ov = root.o ? node.o / root.o : 0;
    return nv - ov;
  }

  function label(node) { return node.n < 0 ? 'all' : D.names[node.n]; }
  function pct(x, total) { return total ? (100 * x / total).toFixed(2) + '%' : '0%'; }
  function fmtNum(x) { return x.toLocaleString('en-US'); }

  function describe(node) {
    const self = node.v - node.kids.reduce((a, k) => a + k.v, 0);
    let s = `${label(node)}\n`;
    if (D.diff) {
      const sign = delta(node) >= 0 ? '+' : '';
      s += `new: ${fmtNum(node.v)} ${D.unit} (${pct(node.v, root.v)})\n` +
           `old: ${fmtNum(node.o)} ${D.unit} (${pct(node.o, root.o)})\n` +
           `delta: ${sign}${(100 * delta(node)).toFixed(2)}%`;
    } else {
      s += `${fmtNum(node.v)} ${D.unit} (${pct(node.v, root.v)} of all`;
      if (state.zoom && state.zoom !== root) s += `, ${pct(node.v, state.zoom.v)} of zoom`;
      s += `), self ${fmtNum(self)}`;
      if (node.f > 0) s += `\noff-CPU (blocked): ${pct(node.f, node.v)} of it`;
      if (node.q > 0) s += `\nrun-queue: ${pct(node.q, node.v)} of it`;
      if (node.n >= 0) s += `\nkind: ${KIND_NAMES[D.kinds[node.n]]}`;
    }
    return s;
  }

  function matches(node) { return state.regex !== null && node.n >= 0 && state.regex.test(D.names[node.n]); }

  function render() {
    const width = Math.max(200, chart.clientWidth || window.innerWidth - 20);
    const zoom = state.zoom || root;
    const scale = width / (zoom.v || 1);
    // Lay out first, then size the chart to the deepest frame actually drawn (at least
    // half a pixel wide): one garbage 128-frame sample must not make the chart 128 rows
    // tall with the whole graph below the first screen.
    const drawn = [];  // [node, x, w, ancestor]
    for (let a = zoom; a; a = a.p) drawn.push([a, 0, width, a !== zoom]);  // zoom node and its callers
    (function walk(node, x) {
      let cx = x;
      for (const k of node.kids) {
        const w = k.v * scale;
        if (w >= 0.5) {
          drawn.push([k, cx, w, false]);
          walk(k, cx);
        }
        cx += w;
      }
    })(zoom, 0);
    let depth = 0;
    for (const f of drawn) depth = Math.max(depth, f[0].d);
    const height = (depth + 1) * ROW;
    chart.style.height = height + 'px';
    const frag = document.createDocumentFragment();
    const y = (d) => state.icicle ? d * ROW : height - (d + 1) * ROW;
    for (const [node, x, w, ancestor] of drawn) {
      const el = document.createElement('div');
      el.className = 'frame k-' + (node.n < 0 ? 'root' : KIND_NAMES[D.kinds[node.n]]) +
        (ancestor ? ' ancestor' : '') + (matches(node) ? ' match' : '');
      el.style.left = x + 'px';
      el.style.width = w + 'px';
      el.style.top = y(node.d) + 'px';
      el.style.background = color(node);
      el.dataset.name = label(node);
      el.frameNode = node;
      if (w > 24) el.textContent = label(node);
      frag.appendChild(el);
    }
    chart.replaceChildren(frag);
    chart.dataset.frames = String(drawn.length);
    chart.dataset.depth = String(depth + 1);
    updateMatched();
  }

  // A flame graph taller than the window opens scrolled to its roots (the wide frames at
  // the bottom), so the first screen shows the graph, not the thin tips of deep stacks.
  function showRoots() {
    if (state.icicle) return;
    const r = chart.getBoundingClientRect();
    if (r.bottom > window.innerHeight) window.scrollBy(0, r.bottom - window.innerHeight + 8);
  }

  function updateMatched() {
    if (state.regex === null) { matchedEl.textContent = ''; return; }
    let total = 0;
    (function walk(node) {  // top-most matches only, so nested matches are not counted twice
      if (matches(node)) { total += node.v; return; }
      for (const k of node.kids) walk(k);
    })(root);
    matchedEl.textContent = `Matched: ${pct(total, root.v)} (${fmtNum(total)} of ${fmtNum(root.v)} ${D.unit})`;
  }

  function setSearch(text) {
    if (!text) { state.regex = null; render(); return; }
    try { state.regex = new RegExp(text); }
    catch (e) { state.regex = new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')); }
    render();
  }

  function rebuild() {
    root = build(state.inverted);
    let md = 0;
    (function walk(node) { if (node.n >= 0) md = Math.max(md, Math.abs(delta(node))); node.kids.forEach(walk); })(root);
    root.maxDelta = md;
    state.zoom = null;
    render();
  }

  chart.addEventListener('click', (ev) => {
    const el = ev.target.closest('.frame');
    if (!el) return;
    state.zoom = el.frameNode.n < 0 ? null : el.frameNode;
    render();
  });
  chart.addEventListener('mousemove', (ev) => {
    const el = ev.target.closest('.frame');
    if (!el) { tooltip.style.display = 'none'; return; }
    tooltip.textContent = describe(el.frameNode);
    tooltip.style.display = 'block';
    const tx = Math.min(ev.clientX + 12, window.innerWidth - tooltip.offsetWidth - 4);
    const ty = ev.clientY + 16 + tooltip.offsetHeight > window.innerHeight ?
      ev.clientY - tooltip.offsetHeight - 8 : ev.clientY + 16;
    tooltip.style.left = tx + 'px';
    tooltip.style.top = ty + 'px';
    details.textContent = describe(el.frameNode).replace(/\n/g, '  |  ');
  });
  chart.addEventListener('mouseleave', () => { tooltip.style.display = 'none'; });
  document.getElementById('reset-zoom').addEventListener('click', () => { state.zoom = null; render(); });
  document.getElementById('toggle-orientation').addEventListener('click', (ev) => {
    state.icicle = !state.icicle;
    ev.target.textContent = state.icicle ? 'Flame' : 'Icicle';
    render();
  });
  document.getElementById('toggle-inverted').addEventListener('click', (ev) => {
    state.inverted = !state.inverted;
    ev.target.textContent = state.inverted ? 'Callers' : 'Callees';
    rebuild();
  });
  let timer = 0;
  searchEl.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => setSearch(searchEl.value), 150);
  });
  searchEl.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') { clearTimeout(timer); setSearch(searchEl.value); }
  });
  document.getElementById('reset-search').addEventListener('click', () => { searchEl.value = ''; setSearch(''); });
  window.addEventListener('resize', () => render());

  document.getElementById('subtitle').textContent = D.subtitle || '';
  const legend = document.getElementById('legend');
  const items = D.diff ? [['grew', 'rgb(255,80,80)'], ['shrank', 'rgb(80,80,255)'], ['unchanged', 'rgb(245,245,245)']] :
    [['user', 'rgb(228,90,90)'], ['kernel', 'rgb(222,122,0)'], ['JIT', 'rgb(80,200,75)'], ['unknown', 'rgb(185,185,185)'], ['comm', 'rgb(140,180,235)']];
  for (const [name, c] of items) {
    const sw = document.createElement('span');
    sw.className = 'sw';
    sw.style.background = c;
    legend.appendChild(sw);
    legend.appendChild(document.createTextNode(name));
  }
  rebuild();
  showRoots();
  // Hooks for scripted use and tests: perfxFlameGraph.search('re'), .zoomTo('name').
  window.perfxFlameGraph = {
    search: (t) => { searchEl.value = t; setSearch(t); return matchedEl.textContent; },
    state: () => ({ zoom: state.zoom ? label(state.zoom) : 'all', inverted: state.inverted, icicle: state.icicle }),
  };
})();
