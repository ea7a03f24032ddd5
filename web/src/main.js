// The viewer page: one renderer, one camera and its controls shared by one or two runs (drawn
// side by side, in step: both at the same simulated time), a timeline with play/pause/scrub,
// and each run's summary. window.graspsimViewer is what the browser test reads.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

import { frameAt, loadRuns } from './data.js';
import { RunView } from './scene.js';

const api = { ready: false, error: null };
window.graspsimViewer = api;

function el(tag, attrs = {}, text = '') {
  const e = document.createElement(tag);
  Object.assign(e, attrs);
  if (text) e.textContent = text;
  return e;
}

function fail(message) {
  api.error = message;
  document.getElementById('status').textContent = `error: ${message}`;
  document.getElementById('status').className = 'error';
}

// The summary fields worth a glance: the run's status, stepper, timings, and the summary's
// scalars (nested objects shown as JSON).
function summaryText(run) {
  const r = run.run || {};
  const lines = [`${run.name}  (${run.path})`];
  if (r.status) lines.push(`status: ${r.status}`);
  if (r.scene) lines.push(`scene: ${r.scene}`);
  if (r.options && r.options.stepper) lines.push(`stepper: ${r.options.stepper}${r.options.solver ? ` / ${r.options.solver}` : ''}`);
  const show = (v) => (typeof v === 'number' ? Number(v.toPrecision(6)) : JSON.stringify(v));
  for (const [k, v] of Object.entries(r.summary || {})) {
    if (k === 'final_bodies') continue;
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      for (const [k2, v2] of Object.entries(v)) lines.push(`${k}.${k2}: ${show(v2)}`);
    } else {
      lines.push(`${k}: ${show(v)}`);
    }
  }
  return lines.join('\n');
}

function setup(runs) {
  const views = runs.map((r) => new RunView(r));
  // Side by side, one arrow scale: equal forces draw equal arrows.
  const forceScale = Math.min(...views.map((v) => v.forceScale));
  for (const v of views) v.forceScale = forceScale;
  const canvas = document.getElementById('view');
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(window.devicePixelRatio);
  renderer.setScissorTest(true);

  const { center, radius } = views[0].extent;
  const camera = new THREE.PerspectiveCamera(40, 1, radius / 100, radius * 200);
  camera.up.set(0, 0, 1);
  camera.position.copy(center).add(new THREE.Vector3(1.6, -2.4, 1.4).multiplyScalar(radius * (views.length > 1 ? 2.2 : 1.6)));
  const controls = new OrbitControls(camera, canvas);
  controls.target.copy(center);
  controls.update();

  const times = views[0].run.bodies.times;
  const t0 = Math.min(...views.map((v) => v.run.bodies.times[0]));
  const t1 = Math.max(...views.map((v) => v.run.bodies.times[v.run.bodies.times.length - 1]));
  const slider = document.getElementById('time');
  slider.min = 0;
  slider.max = 1000;
  const label = document.getElementById('clock');
  const play = document.getElementById('play');
  const speed = document.getElementById('speed');
  let t = t0;
  let playing = false;
  let last = null;

  function show(time) {
    t = Math.min(t1, Math.max(t0, time));
    for (const v of views) v.setFrame(frameAt(v.run.bodies.times, t));
    slider.value = t1 > t0 ? Math.round((1000 * (t - t0)) / (t1 - t0)) : 0;
    label.textContent = `t = ${t.toFixed(3)} s`;
  }

  function render() {
    const w = canvas.clientWidth;
    const h = canvas.clientHeight;
    if (canvas.width !== Math.floor(w * renderer.getPixelRatio()) || canvas.height !== Math.floor(h * renderer.getPixelRatio())) {
      renderer.setSize(w, h, false);
    }
    const pane = w / views.length;
    camera.aspect = pane / h;
    camera.updateProjectionMatrix();
    views.forEach((v, i) => {
      renderer.setViewport(i * pane, 0, pane, h);
      renderer.setScissor(i * pane, 0, pane, h);
      renderer.render(v.scene, camera);
    });
  }

  function tick(now) {
    if (playing) {
      if (last !== null) show(t + ((now - last) / 1000) * Number(speed.value));
      if (t >= t1) playing = false;
      play.textContent = playing ? 'pause' : 'play';
    }
    last = now;
    render();
    requestAnimationFrame(tick);
  }

  play.onclick = () => {
    if (!playing && t >= t1) show(t0);
    playing = !playing;
    last = null;
    play.textContent = playing ? 'pause' : 'play';
  };
  slider.oninput = () => { playing = false; play.textContent = 'play'; show(t0 + ((t1 - t0) * slider.value) / 1000); };
  // Space plays or pauses; the arrow keys step one recorded frame of the first run.
  window.addEventListener('keydown', (e) => {
    if (e.target.tagName === 'INPUT' || e.target.tagName === 'SELECT') return;
    if (e.key === ' ') { e.preventDefault(); play.onclick(); }
    if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
      const f = frameAt(times, t) + (e.key === 'ArrowRight' ? 1 : -1);
      playing = false;
      play.textContent = 'play';
      show(times[Math.max(0, Math.min(times.length - 1, f))]);
    }
  });
  document.getElementById('traces').onchange = (e) => views.forEach((v) => { v.traces.visible = e.target.checked; });
  document.getElementById('collision').onchange = (e) => views.forEach((v) => v.showCollision(e.target.checked));

  const panels = document.getElementById('summaries');
  for (const v of views) panels.append(el('pre', { className: 'summary' }, summaryText(v.run)));
  const scale = `${(1000 * forceScale).toPrecision(2)} mm`;
  document.getElementById('status').textContent =
    `${views.length === 2 ? `${views[0].run.name} (left) and ${views[1].run.name} (right), in step` : views[0].run.name}` +
    `  ·  arrows: contact force on body B, 1 N = ${scale}  ·  space: play/pause, ←/→: one frame`;

  show(t0);
  render();
  requestAnimationFrame(tick);

  Object.assign(api, {
    runs: views.map((v) => v.run.name),
    frames: (i = 0) => views[i].run.bodies.times.length,
    times: (i = 0) => Array.from(views[i].run.bodies.times),
    setTime: (time) => { playing = false; show(time); render(); return api.stats(); },
    setFrame: (frame) => api.setTime(times[Math.max(0, Math.min(times.length - 1, frame))]),
    play: () => { if (!playing) play.onclick(); },
    stats: () => ({ t, runs: views.map((v) => v.stats()) }),
    ready: true,
  });
}

async function start() {
  try {
    const declared = window.GRASPSIM_RUNS;
    if (!Array.isArray(declared) || declared.length === 0) throw new Error('no runs: open this page through `graspsim view RUN_DIR` or an exported copy');
    setup(await loadRuns(declared));
  } catch (e) {
    fail(e.message || String(e));
    console.error(e);
  }
}

start();
