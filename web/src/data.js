// Reading a run's recordings (docs/recordings.md): geometry.json, bodies.csv, contacts.csv,
// run.json and, for an MCube validation folder, trajectory.csv. No engine involved.

// The runs the page was given: window.GRASPSIM_RUNS (data.js) holds, per run, either the
// files' contents (an exported copy) or the URLs to fetch them from (`graspsim view`).
export async function loadRuns(declared) {
  return Promise.all(declared.map(async (run) => {
    const text = {};
    for (const [name, value] of Object.entries(run.files || {})) text[name] = value;
    for (const [name, url] of Object.entries(run.urls || {})) {
      const res = await fetch(url);
      if (!res.ok) throw new Error(`${run.path}: ${name}: HTTP ${res.status}`);
      text[name] = await res.text();
    }
    if (!text['geometry.json'] || !text['bodies.csv']) throw new Error(`${run.path}: geometry.json or bodies.csv missing`);
    return parseRun(run.name, run.path, text);
  }));
}

// Rows of a CSV with a header line (no quoted fields: graspsim writes none).
export function parseCsv(text) {
  const lines = text.split('\n').filter((l) => l.length > 0);
  if (lines.length === 0) return { header: [], rows: [] };
  const header = lines[0].split(',');
  return { header, rows: lines.slice(1).map((l) => l.split(',')) };
}

function column(header, name, file) {
  const i = header.indexOf(name);
  if (i < 0) throw new Error(`${file}: no column '${name}'`);
  return i;
}

// bodies.csv: per recorded time, each body's pose. Stored as times[] and, per body, a
// Float64Array of 7 numbers (x y z qw qx qy qz) per frame.
function parseBodies(text, bodyNames) {
  const { header, rows } = parseCsv(text);
  const cT = column(header, 't', 'bodies.csv');
  const cBody = column(header, 'body', 'bodies.csv');
  const cPose = ['x', 'y', 'z', 'qw', 'qx', 'qy', 'qz'].map((c) => column(header, c, 'bodies.csv'));
  const times = [];
  const timeIndex = new Map();
  for (const r of rows) {
    if (!timeIndex.has(r[cT])) {
      timeIndex.set(r[cT], times.length);
      times.push(Number(r[cT]));
    }
  }
  const index = new Map(bodyNames.map((n, i) => [n, i]));
  const poses = bodyNames.map(() => new Float64Array(7 * times.length).fill(NaN));
  for (const r of rows) {
    const b = index.get(r[cBody]);
    if (b === undefined) continue;
    const f = timeIndex.get(r[cT]);
    for (let k = 0; k < 7; ++k) poses[b][7 * f + k] = Number(r[cPose[k]]);
  }
  return { times, timeIndex, poses };
}

// contacts.csv: per frame, the contacts recorded with that state (force on B = fn n + ft).
function parseContacts(text, timeIndex, nframes) {
  const frames = Array.from({ length: nframes }, () => []);
  if (!text) return frames;
  const { header, rows } = parseCsv(text);
  const c = Object.fromEntries(['t', 'body_a', 'body_b', 'px', 'py', 'pz', 'nx', 'ny', 'nz', 'fn', 'ftx', 'fty', 'ftz']
    .map((name) => [name, column(header, name, 'contacts.csv')]));
  for (const r of rows) {
    const f = timeIndex.get(r[c.t]);
    if (f === undefined) continue;
    const n = [Number(r[c.nx]), Number(r[c.ny]), Number(r[c.nz])];
    const fn = Number(r[c.fn]);
    frames[f].push({
      a: r[c.body_a], b: r[c.body_b],
      p: [Number(r[c.px]), Number(r[c.py]), Number(r[c.pz])],
      f: [fn * n[0] + Number(r[c.ftx]), fn * n[1] + Number(r[c.fty]), fn * n[2] + Number(r[c.ftz])],
    });
  }
  return frames;
}

// trajectory.csv of `graspsim validate mcube`: the simulated and the real object's planar
// pose (mm, degrees) over time.
function parseTrajectory(text) {
  if (!text) return null;
  const { header, rows } = parseCsv(text);
  const cols = ['t', 'sim_x_mm', 'sim_y_mm', 'sim_yaw_deg', 'real_x_mm', 'real_y_mm', 'real_yaw_deg']
    .map((name) => column(header, name, 'trajectory.csv'));
  return rows.map((r) => cols.map((i) => Number(r[i])));
}

export function parseRun(name, path, text) {
  const geometry = JSON.parse(text['geometry.json']);
  if (geometry.format !== 'graspsim geometry') throw new Error(`${path}: geometry.json is not a graspsim geometry file`);
  const bodyNames = geometry.bodies.map((b) => b.name);
  const bodies = parseBodies(text['bodies.csv'], bodyNames);
  if (bodies.times.length === 0) throw new Error(`${path}: bodies.csv holds no rows`);
  const contacts = parseContacts(text['contacts.csv'], bodies.timeIndex, bodies.times.length);
  const run = text['run.json'] ? JSON.parse(text['run.json']) : {};
  return { name, path, geometry, bodyNames, bodies, contacts, run, trajectory: parseTrajectory(text['trajectory.csv']) };
}

// The last frame at or before t (binary search over the recorded times).
export function frameAt(times, t) {
  let lo = 0;
  let hi = times.length - 1;
  if (t <= times[0]) return 0;
  if (t >= times[hi]) return hi;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= t + 1e-12) lo = mid; else hi = mid;
  }
  return lo;
}
