// The viewer in headless Chromium (Debian's, through playwright-core): a recorded grasp is
// served by `graspsim view` and exported as a static copy; both must render the scene with the
// right number of bodies and force arrows at a chosen frame. Screenshots are kept in
// $GRASPSIM_ARTIFACTS. Two runs side by side, and bad input to `graspsim view`, too.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { chromium } from 'playwright-core';

const root = process.env.GRASPSIM_SOURCE_DIR || new URL('../..', import.meta.url).pathname;
const cli = process.env.GRASPSIM_CLI || join(root, 'build/bin/graspsim');
const web = process.env.GRASPSIM_WEB_DIR || join(root, 'build/web');
const artifacts = process.env.GRASPSIM_ARTIFACTS || join(root, 'build/web-test');
const tmp = mkdtempSync(join(tmpdir(), 'graspsim-view-'));
mkdirSync(artifacts, { recursive: true });

function run(args) {
  const r = spawnSync(cli, args, { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function record(name, scene, sets, duration) {
  const out = join(tmp, name);
  const r = run(['run', join(root, scene), '--duration', String(duration), '--out', out, ...sets.flatMap((s) => ['--set', s])]);
  assert.equal(r.code, 0, r.err);
  return out;
}

// What the recordings say, read here independently of the viewer: the bodies with geoms
// (not the world) and, per recorded time, the contacts carrying a force.
function expected(dir) {
  const geometry = JSON.parse(readFileSync(join(dir, 'geometry.json'), 'utf8'));
  const drawn = new Set(geometry.geoms.filter((g) => g.body > 0 && g.type !== 'plane').map((g) => g.body));
  const lines = readFileSync(join(dir, 'contacts.csv'), 'utf8').trim().split('\n');
  const h = lines[0].split(',');
  const col = (n) => h.indexOf(n);
  const arrows = new Map();
  for (const l of lines.slice(1)) {
    const r = l.split(',');
    const n = [r[col('nx')], r[col('ny')], r[col('nz')]].map(Number);
    const fn = Number(r[col('fn')]);
    const f = [0, 1, 2].map((k) => fn * n[k] + Number(r[col(['ftx', 'fty', 'ftz'][k])]));
    if (Math.hypot(...f) > 1e-9) arrows.set(r[0], (arrows.get(r[0]) || 0) + 1);
  }
  return { bodies: drawn.size, arrows };
}

let browser;
let hold;
let holdIterative;

before(async () => {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    // root in CI: no sandbox; WebGL through SwiftShader without a GPU
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist'],
  });
  // The two-finger hold: two fingers and a box, contacts from the first steps.
  hold = record('hold', 'scenes/validation/grasp_hold.yaml', [], 0.3);
  holdIterative = record('hold_iterative', 'scenes/validation/grasp_hold.yaml', ['options.solver=iterative'], 0.3);
});

after(async () => {
  await browser?.close();
  rmSync(tmp, { recursive: true, force: true });
});

// Non-background pixels of the WebGL canvas (read back: the renderer keeps its buffer).
async function painted(page) {
  return page.evaluate(async () => {
    const src = document.getElementById('view');
    const img = new Image();
    img.src = src.toDataURL('image/png');
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width;
    c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    const colours = new Set();
    let lit = 0;
    for (let i = 0; i < d.length; i += 4) {
      const bg = Math.abs(d[i] - 244) + Math.abs(d[i + 1] - 244) + Math.abs(d[i + 2] - 242) < 6;
      if (!bg) ++lit;
      if (i % 64 === 0) colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
    }
    return { lit: lit / (d.length / 4), colours: colours.size };
  });
}

async function open(url) {
  const page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForFunction(() => window.graspsimViewer && (window.graspsimViewer.ready || window.graspsimViewer.error), null, { timeout: 60000 });
  const error = await page.evaluate(() => window.graspsimViewer.error);
  assert.equal(error, null, `viewer error: ${error}`);
  assert.deepEqual(errors, []);
  return page;
}

async function checkFrame(page, dir, run = 0) {
  const want = expected(dir);
  const times = await page.evaluate((i) => window.graspsimViewer.times(i), run);
  // a frame in the middle of the hold, with the fingers pressing
  const frame = Math.floor(times.length / 2);
  const stats = await page.evaluate((f) => window.graspsimViewer.setFrame(f), frame);
  const s = stats.runs[run];
  assert.equal(s.frame, frame);
  assert.equal(s.bodies, want.bodies);
  const key = [...want.arrows.keys()].find((k) => Math.abs(Number(k) - times[frame]) < 1e-12);
  assert.ok(key, `no contacts recorded at t = ${times[frame]}`);
  assert.equal(s.arrows, want.arrows.get(key));
  assert.ok(s.arrows >= 2, 'the fingers press on the box');
  return s;
}

function serve(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(cli, ['view', ...args, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/http:\/\/[0-9.]+:\d+\//);
      if (m) resolve({ child, url: m[0] });
    });
    child.on('exit', (code) => reject(new Error(`graspsim view exited ${code}: ${out}`)));
  });
}

test('served: the hold renders with its bodies and force arrows', async () => {
  const { child, url } = await serve([hold]);
  try {
    const page = await open(url);
    const s = await checkFrame(page, hold);
    assert.equal(s.bodies, 3);
    const px = await painted(page);
    assert.ok(px.lit > 0.05 && px.colours > 5, `canvas looks empty: ${JSON.stringify(px)}`);
    await page.screenshot({ path: join(artifacts, 'viewer-served.png') });
    // the timeline plays
    const t0 = (await page.evaluate(() => window.graspsimViewer.setFrame(0))).t;
    await page.evaluate(() => window.graspsimViewer.play());
    await page.waitForFunction((t) => window.graspsimViewer.stats().t > t, t0, { timeout: 20000 });
    await page.close();
  } finally {
    child.kill('SIGINT');
  }
});

test('exported: a static copy opens from disk without a server', async () => {
  const out = join(tmp, 'export');
  const r = run(['view', hold, '--export', out]);
  assert.equal(r.code, 0, r.err);
  const page = await open(pathToFileURL(join(out, 'index.html')).href);
  await checkFrame(page, hold);
  const px = await painted(page);
  assert.ok(px.lit > 0.05, `canvas looks empty: ${JSON.stringify(px)}`);
  await page.screenshot({ path: join(artifacts, 'viewer-exported.png') });
  await page.close();
});

test('side by side: two formulations of one scene in step', async () => {
  const { child, url } = await serve([hold, holdIterative]);
  try {
    const page = await open(url);
    await checkFrame(page, hold, 0);
    await checkFrame(page, holdIterative, 1);
    const stats = await page.evaluate(() => window.graspsimViewer.setTime(0.2));
    assert.equal(stats.runs.length, 2);
    assert.equal(stats.runs[0].t, stats.runs[1].t);
    await page.screenshot({ path: join(artifacts, 'viewer-side-by-side.png') });
    await page.close();
  } finally {
    child.kill('SIGINT');
  }
});

test('an MCube validation folder: the simulated push beside the real track', async () => {
  const push = join(root, '../shared/data/mcube-push/plywood/rect1/motion_surface=plywood_shape=rect1_a=0_v=100_i=0.000_s=0.000_t=0.000.json');
  const out = join(tmp, 'mcube');
  const r = run(['validate', 'mcube', push, '--out', out]);
  assert.equal(r.code, 0, r.err);
  const dir = join(out, 'motion_surface=plywood_shape=rect1_a=0_v=100_i=0.000_s=0.000_t=0.000');
  const exported = join(tmp, 'mcube_export');
  assert.equal(run(['view', dir, '--export', exported]).code, 0);
  const page = await open(pathToFileURL(join(exported, 'index.html')).href);
  const s = await page.evaluate(() => window.graspsimViewer.setFrame(1e9));
  assert.equal(s.runs[0].realTrack, true);
  assert.equal(s.runs[0].bodies, 2);  // the object and the pusher
  await page.screenshot({ path: join(artifacts, 'viewer-mcube.png') });
  await page.close();
});

test('bad input: a folder without recordings, a missing viewer', () => {
  let r = run(['view', tmp]);
  assert.equal(r.code, 2);
  assert.match(r.err, /no geometry.json/);
  r = run(['view', hold, '--web', tmp, '--export', join(tmp, 'x')]);
  assert.equal(r.code, 2);
  assert.match(r.err, /the viewer is not built there/);
  r = run(['view', hold, hold, hold]);
  assert.equal(r.code, 2);
});
