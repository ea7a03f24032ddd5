// One run drawn with three.js: a group per body built from geometry.json, posed from
// bodies.csv frame by frame; contact points and force arrows from contacts.csv; traces of
// the moving bodies; for an MCube validation folder, the real object's track.
import * as THREE from 'three';

const PALETTE = [0x4e79a7, 0xf28e2b, 0x59a14f, 0xb07aa1, 0x76b7b2, 0xedc948, 0xff9da7, 0x9c755f, 0xbab0ac];

function geomMesh(g, meshes, material) {
  let geometry;
  const [a, b, c] = g.size;
  switch (g.type) {
    case 'sphere': geometry = new THREE.SphereGeometry(a, 32, 16); break;
    case 'box': geometry = new THREE.BoxGeometry(2 * a, 2 * b, 2 * c); break;
    case 'capsule': geometry = new THREE.CapsuleGeometry(a, 2 * b, 8, 24).rotateX(Math.PI / 2); break;
    case 'cylinder': geometry = new THREE.CylinderGeometry(a, a, 2 * b, 32).rotateX(Math.PI / 2); break;
    case 'convex_mesh':
    case 'mesh': {
      const m = meshes[g.mesh];
      geometry = new THREE.BufferGeometry();
      geometry.setAttribute('position', new THREE.Float32BufferAttribute(m.vertices, 3));
      geometry.setIndex(m.faces);
      geometry.computeVertexNormals();
      break;
    }
    default: return null;  // planes are drawn by the scene as a floor
  }
  const mesh = new THREE.Mesh(geometry, material);
  mesh.position.set(...g.pos);
  mesh.quaternion.set(g.quat[1], g.quat[2], g.quat[3], g.quat[0]);
  mesh.name = g.name;
  return mesh;
}

function setPose(object, poses, frame) {
  const k = 7 * frame;
  if (Number.isNaN(poses[k])) return;
  object.position.set(poses[k], poses[k + 1], poses[k + 2]);
  object.quaternion.set(poses[k + 4], poses[k + 5], poses[k + 6], poses[k + 3]);
}

export class RunView {
  constructor(run) {
    this.run = run;
    this.scene = new THREE.Scene();
    this.scene.background = new THREE.Color(0xf4f4f2);
    this.scene.add(new THREE.HemisphereLight(0xffffff, 0x777788, 2.2));
    const sun = new THREE.DirectionalLight(0xffffff, 1.6);
    sun.position.set(1, -1.5, 2.5);
    this.scene.add(sun);
    this.bodies = [];       // THREE.Group per body index (0 = world)
    this.drawn = 0;         // bodies other than the world with something to draw
    this.buildBodies();
    this.setFrame(0);
    this.extent = this.measure();
    this.buildFloor();
    this.buildTraces();
    this.buildTrack();
    this.arrows = [];
    this.points = new THREE.Group();
    this.scene.add(this.points);
    this.forceScale = this.chooseForceScale();
  }

  buildBodies() {
    const { geometry } = this.run;
    // MJCF robots carry visual meshes and collision shapes on the same bodies: show the visual
    // ones where a body has them (collision shapes on a toggle), everything elsewhere.
    const hasVisual = new Set(geometry.geoms.filter((g) => !g.collides && g.type !== 'plane').map((g) => g.body));
    this.collisionMeshes = [];
    geometry.bodies.forEach((body, i) => {
      const group = new THREE.Group();
      group.name = body.name;
      const color = i === 0 ? 0x999999 : PALETTE[(i - 1) % PALETTE.length];
      const material = new THREE.MeshStandardMaterial({ color, roughness: 0.6, metalness: 0.05 });
      const ghost = new THREE.MeshStandardMaterial({ color, transparent: true, opacity: 0.35 });
      let count = 0;
      for (const g of geometry.geoms) {
        if (g.body !== i) continue;
        const hidden = g.collides && hasVisual.has(i);
        const mesh = geomMesh(g, geometry.meshes, hidden ? ghost : material);
        if (!mesh) continue;
        mesh.visible = !hidden;
        if (hidden) this.collisionMeshes.push(mesh);
        group.add(mesh);
        ++count;
      }
      if (i > 0 && count > 0) ++this.drawn;
      this.bodies.push(group);
      this.scene.add(group);
    });
  }

  showCollision(on) {
    for (const m of this.collisionMeshes) m.visible = on;
  }

  // Box around the bodies at the first frame (floors left out): for the camera and scales.
  measure() {
    const box = new THREE.Box3();
    this.bodies.forEach((g, i) => { if (i > 0 || g.children.length) box.expandByObject(g); });
    if (box.isEmpty()) box.set(new THREE.Vector3(-0.1, -0.1, -0.1), new THREE.Vector3(0.1, 0.1, 0.1));
    const size = box.getSize(new THREE.Vector3());
    return { box, center: box.getCenter(new THREE.Vector3()), radius: Math.max(0.02, 0.5 * size.length()) };
  }

  buildFloor() {
    for (const g of this.run.geometry.geoms) {
      if (g.type !== 'plane') continue;
      const span = Math.max(0.2, 6 * this.extent.radius);
      const floor = new THREE.Mesh(new THREE.PlaneGeometry(span, span),
        new THREE.MeshStandardMaterial({ color: 0xd8d8d0, roughness: 0.95 }));
      const grid = new THREE.GridHelper(span, 20, 0xaaaaaa, 0xc8c8c8);
      grid.rotateX(Math.PI / 2);
      grid.position.z = 1e-4;
      const group = new THREE.Group();
      group.add(floor, grid);
      group.position.set(...g.pos);
      group.quaternion.set(g.quat[1], g.quat[2], g.quat[3], g.quat[0]);
      group.position.x += this.extent.center.x;
      group.position.y += this.extent.center.y;
      this.bodies[g.body].add(group);
    }
  }

  // A line through every recorded position of each body that moves.
  buildTraces() {
    this.traces = new THREE.Group();
    const { poses, times } = this.run.bodies;
    poses.forEach((p, b) => {
      if (b === 0 || !this.bodies[b].children.length) return;
      const pts = [];
      for (let f = 0; f < times.length; ++f) if (!Number.isNaN(p[7 * f])) pts.push(new THREE.Vector3(p[7 * f], p[7 * f + 1], p[7 * f + 2]));
      if (pts.length < 2 || pts[0].distanceTo(pts[pts.length - 1]) + pts[0].distanceTo(pts[pts.length >> 1]) < 1e-6) return;
      const line = new THREE.Line(new THREE.BufferGeometry().setFromPoints(pts),
        new THREE.LineBasicMaterial({ color: PALETTE[(b - 1) % PALETTE.length] }));
      line.name = `trace ${this.run.bodyNames[b]}`;
      this.traces.add(line);
    });
    this.scene.add(this.traces);
  }

  // MCube validation folders: the real object's planar track, and a ghost of the object where
  // the recording has it. trajectory.csv's frame is tied to the world through the simulated
  // object's pose at the first recorded time.
  buildTrack() {
    const tr = this.run.trajectory;
    this.ghost = null;
    if (!tr || tr.length === 0) return;
    const object = this.run.geometry.bodies.findIndex((b, i) => i > 0 && !b.kinematic && this.bodies[i].children.length);
    if (object < 0) return;
    const p = this.run.bodies.poses[object];
    const yaw0 = 2 * Math.atan2(p[6], p[3]);
    const sim0 = tr[0];
    const toWorld = (x, y, yawDeg) => {
      const dx = (x - sim0[1]) / 1000;
      const dy = (y - sim0[2]) / 1000;
      const d = yaw0 - (sim0[3] * Math.PI) / 180;
      return [p[0] + Math.cos(d) * dx - Math.sin(d) * dy, p[1] + Math.sin(d) * dx + Math.cos(d) * dy, (yawDeg * Math.PI) / 180 + d];
    };
    this.track = tr.map((r) => [r[0], ...toWorld(r[4], r[5], r[6])]);
    // (on the floor under the object, where the box does not hide it)
    const line = new THREE.Line(new THREE.BufferGeometry().setFromPoints(this.track.map((r) => new THREE.Vector3(r[1], r[2], 5e-4))),
      new THREE.LineBasicMaterial({ color: 0xd62728 }));
    line.name = 'real track';
    this.scene.add(line);
    this.ghost = this.bodies[object].clone();
    this.ghost.traverse((m) => { if (m.isMesh) m.material = new THREE.MeshStandardMaterial({ color: 0xd62728, transparent: true, opacity: 0.4 }); });
    this.ghost.scale.setScalar(1.01);  // just outside the simulated object where they coincide
    this.ghostZ = p[2];
    this.scene.add(this.ghost);
  }

  chooseForceScale() {
    let max = 0;
    for (const frame of this.run.contacts) for (const c of frame) max = Math.max(max, Math.hypot(...c.f));
    return max > 0 ? (0.6 * this.extent.radius) / max : 1;
  }

  setFrame(frame) {
    this.frame = frame;
    const { poses } = this.run.bodies;
    this.bodies.forEach((g, b) => { if (b > 0) setPose(g, poses[b], frame); });
    if (this.arrows) this.drawContacts(frame);
    if (this.ghost) {
      const t = this.run.bodies.times[frame];
      let k = 0;
      while (k + 1 < this.track.length && this.track[k + 1][0] <= t + 1e-9) ++k;
      const [, x, y, yaw] = this.track[k];
      this.ghost.position.set(x, y, this.ghostZ);
      this.ghost.quaternion.setFromAxisAngle(new THREE.Vector3(0, 0, 1), yaw);
    }
  }

  // Arrows for the force on B at each contact, length proportional to its magnitude.
  drawContacts(frame) {
    const contacts = this.run.contacts[frame] || [];
    let shown = 0;
    const dotRadius = 0.015 * this.extent.radius;
    while (this.points.children.length < contacts.length) {
      this.points.add(new THREE.Mesh(new THREE.SphereGeometry(1, 8, 6), new THREE.MeshBasicMaterial({ color: 0x111111 })));
    }
    this.points.children.forEach((m, i) => {
      m.visible = i < contacts.length;
      if (m.visible) { m.position.set(...contacts[i].p); m.scale.setScalar(dotRadius); }
    });
    for (const c of contacts) {
      const magnitude = Math.hypot(...c.f);
      if (!(magnitude > 1e-9)) continue;
      if (shown === this.arrows.length) {
        const arrow = new THREE.ArrowHelper(new THREE.Vector3(0, 0, 1), new THREE.Vector3(), 1, 0xd62728);
        this.arrows.push(arrow);
        this.scene.add(arrow);
      }
      const arrow = this.arrows[shown++];
      const length = magnitude * this.forceScale;
      arrow.position.set(...c.p);
      arrow.setDirection(new THREE.Vector3(...c.f).divideScalar(magnitude));
      arrow.setLength(length, Math.min(0.3 * length, 0.08 * this.extent.radius), Math.min(0.15 * length, 0.04 * this.extent.radius));
      arrow.visible = true;
    }
    for (let i = shown; i < this.arrows.length; ++i) this.arrows[i].visible = false;
    this.shownArrows = shown;
  }

  stats() {
    return {
      name: this.run.name,
      frame: this.frame,
      t: this.run.bodies.times[this.frame],
      bodies: this.drawn,
      contacts: (this.run.contacts[this.frame] || []).length,
      arrows: this.shownArrows || 0,
      traces: this.traces.children.length,
      realTrack: Boolean(this.ghost),
    };
  }
}
