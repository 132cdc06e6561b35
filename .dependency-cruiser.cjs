// The house rules, checked over the real import graph of src/ (docs/design.md, "The import-graph
// rules"): test/project/layers.test.ts runs them on every `npm test`, `npx depcruise src` by hand.
// They are data: a new layer, room or door is one line in the tables below. Tests (*.test.ts)
// are left out: a test may open any room to test its inside.

/** Layers, bottom first: each may import itself and the layers it names. */
const LAYERS = {
  http: [],
  store: [],
  sandbox: [],
  // The engine stands alone: it is published as its own package (packages/arazzo).
  arazzo: [],
  kafka: ['arazzo'],
  'connect-lint': ['arazzo'],
  ops: ['arazzo', 'http', 'kafka', 'store'],
  present: ['ops'],
  web: ['present', 'ops', 'kafka', 'http'],
  cli: ['present', 'ops', 'store', 'sandbox', 'arazzo', 'connect-lint', 'kafka', 'http'],
};

/** The faces: they only render and ask, and never import each other... */
const FACES = ['cli', 'web'];
/** ...except here: `offsetctl ui` starts the console through the console's door. */
const LAUNCHES = [
  { from: 'src/cli/commands/ui-actions.ts', to: 'src/web/index.ts' },
  // The seam's door to the console (src/cli/load.ts, web), which `offsetctl ui` opens.
  { from: 'src/cli/load.ts', to: 'src/web/index.ts' },
];

/**
 * The rooms of ops, bottom first: each may import the rooms it names (and ops' own errors.ts and
 * context.ts, never ops/index.ts). Faces enter ops through src/ops/index.ts, src/ops/errors.ts or
 * one room's index.ts.
 */
const OPS_ROOMS = {
  offsets: [],
  connect: ['offsets'],
  cluster: [],
  lifecycle: ['connect'],
  positions: ['offsets', 'connect', 'cluster'],
  workflows: [],
  // What each connector class's offsets mean and where the rest of its position lives (a replication slot, a table).
  profiles: ['offsets'],
  plan: ['offsets', 'connect', 'cluster', 'positions', 'workflows', 'profiles'],
  run: ['offsets', 'connect', 'positions', 'workflows', 'plan'],
  audit: ['plan', 'run', 'lifecycle', 'cluster'],
  // positions: a batch rewind to a position gives each connector its own targets (their table travels in the plan).
  batch: ['offsets', 'connect', 'positions', 'plan', 'run', 'audit', 'profiles'],
  // audit: every step of a change request (requested, approved, rejected, applied) is an audit entry.
  changes: ['offsets', 'connect', 'cluster', 'plan', 'run', 'batch', 'audit', 'profiles'],
  move: ['offsets', 'connect', 'cluster', 'lifecycle', 'workflows', 'plan', 'run', 'audit', 'profiles'],
  // A Debezium table re-read through its signal channel (no offset changes): a run with its audit entries.
  replay: ['connect', 'cluster', 'workflows', 'audit'],
  // After a change, does the connector move (--verify): states, offsets, a Debezium source's slot.
  verify: ['offsets', 'connect', 'profiles'],
};

/**
 * Folders entered from outside only through a door: their index.ts, a layer's errors.ts (every
 * face maps every layer's error codes at start-up, without loading the layer) and the side doors
 * named here. Inside src/arazzo each room is entered through its index.ts too (ARAZZO_ROOMS
 * below); the engine's top-level files (errors, types, context, messaging, http) are shared by all.
 */
const ARAZZO_ROOMS = ['criteria', 'document', 'expressions', 'lint', 'runner', 'sources'];

const DOORS = {
  'src/ops': { errors: true, rooms: Object.keys(OPS_ROOMS), sideInRooms: ['workflows/criteria-words.ts', 'workflows/document-cache.ts'] },
  ...Object.fromEntries(Object.keys(OPS_ROOMS).map((room) => [`src/ops/${room}`, {}])),
  // `runs show` says the shipped workflows' criteria in words without loading the engine (the door loads the documents);
  // main hands the face's document cache to ops before a command loads ops or the engine.
  'src/ops/workflows': { side: ['criteria-words.ts', 'document-cache.ts'] },
  'src/present': {},
  'src/web': {},
  'src/web/auth': {},
  // bundled.ts: where the CLI's build entry hands in the packed node-postgres (src/cli/bundle-entry.ts).
  'src/store': { errors: true, side: ['bundled.ts'] },
  // The team store's backend: entered only through its door (src/store/open.ts loads it lazily).
  'src/store/postgres': {},
  // The default backend (SQLite), a folder like the team store's: entered through its index.ts.
  'src/store/sqlite': {},
  'src/sandbox': { errors: true },
  'src/arazzo': {
    errors: true,
    rooms: ARAZZO_ROOMS,
    // The config file's YAML, without loading the engine; bundled.ts: where the CLI's build entry
    // hands in the packed ajv and yaml (src/cli/bundle-entry.ts).
    side: ['yaml.ts', 'bundled.ts'],
  },
  // The engine's rooms, from each other as from outside.
  ...Object.fromEntries(ARAZZO_ROOMS.map((room) => [`src/arazzo/${room}`, {}])),
};

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const oneOf = (names) => `(${names.map(esc).join('|')})`;

const layerRules = Object.entries(LAYERS).map(([layer, uses]) => ({
  name: `layer:${layer}`,
  comment: `src/${layer} may import only ${uses.length ? uses.map((u) => `src/${u}`).join(', ') : 'nothing else in src'} (an upward or sideways import)`,
  severity: 'error',
  from: { path: `^src/${esc(layer)}/` },
  // A launch is the face rules' business (below).
  to: { path: `^src/(?!${oneOf([layer, ...uses])}/)[^/]+/`, pathNot: LAUNCHES.filter((l) => l.from.startsWith(`src/${layer}/`)).map((l) => `^${esc(l.to)}$`) },
}));

const faceRules = FACES.map((face) => ({
  name: `face:${face}`,
  comment: `the ${face} face imports no other face (only the launches listed in .dependency-cruiser.cjs)`,
  severity: 'error',
  from: { path: `^src/${esc(face)}/`, pathNot: LAUNCHES.filter((l) => l.from.startsWith(`src/${face}/`)).map((l) => `^${esc(l.from)}$`) },
  to: { path: `^src/${oneOf(FACES.filter((f) => f !== face))}/` },
})).concat(LAUNCHES.map((l) => ({
  name: `launch:${l.from}`,
  comment: `${l.from} enters the other face only through ${l.to}`,
  severity: 'error',
  from: { path: `^${esc(l.from)}$` },
  to: { path: `^src/${oneOf(FACES)}/`, pathNot: [`^${esc(l.to)}$`, `^${esc(l.from.split('/').slice(0, 2).join('/'))}/`] },
})));

const roomRules = Object.entries(OPS_ROOMS).flatMap(([room, uses]) => [{
  name: `room:ops/${room}`,
  comment: `src/ops/${room} may use only ${uses.length ? uses.map((u) => `ops/${u}`).join(', ') : 'no other room'} (and ops/errors.ts, ops/context.ts)`,
  severity: 'error',
  from: { path: `^src/ops/${esc(room)}/` },
  to: { path: [`^src/ops/(?!${oneOf([room, ...uses])}/)[a-z-]+/`, '^src/ops/index\\.ts$'] },
}]);

/**
 * The unguarded doors: applying a plan (ops/run) or changing a connector's state (ops/lifecycle)
 * without the policy, lock and audit of ops/audit. A face applies through ops/audit's
 * applyAudited, runAudited and changeStateAudited (src/ops/index.ts exports neither applyPlan
 * nor changeConnectorState); it may import these rooms' types only.
 */
const UNGUARDED = ['src/ops/run', 'src/ops/lifecycle'];
const guardRules = FACES.map((face) => ({
  name: `guard:${face}`,
  comment: `the ${face} face applies changes only through ops/audit (the one door: policy, approval, lock, audit); ${UNGUARDED.join(' and ')} are for types only`,
  severity: 'error',
  from: { path: `^src/${esc(face)}/` },
  to: { path: `^${oneOf(UNGUARDED)}/`, dependencyTypesNot: ['type-only'] },
}));

const doorRules = Object.entries(DOORS).map(([folder, d]) => {
  const doors = ['index.ts', ...(d.errors ? ['errors.ts'] : []), ...(d.side ?? []), ...(d.sideInRooms ?? []), ...(d.rooms ?? []).map((r) => `${r}/index.ts`)];
  return {
    name: `door:${folder}`,
    comment: `${folder} is entered only through ${doors.map((x) => `${folder}/${x}`).join(', ')}`,
    severity: 'error',
    from: { pathNot: `^${esc(folder)}/` },
    to: { path: `^${esc(folder)}/`, pathNot: `^${esc(folder)}/${oneOf(doors)}$` },
  };
});

module.exports = {
  forbidden: [
    {
      name: 'no-circle',
      comment: 'files that import each other in a loop (type-only imports count)',
      severity: 'error',
      from: {},
      // Except through a lazy-loading seam (src/cli/load.ts, src/ops/load.ts, ...): its only edges are
      // import() doors, run after start-up, so a loop through it orders no module's evaluation
      // (test/project/lazy-seam.test.ts checks that a seam file imports nothing statically).
      to: { circular: true, viaOnly: { pathNot: '^src/(cli|ops|store|web)/load\\.ts$' } },
    },
    ...layerRules,
    ...faceRules,
    ...roomRules,
    ...guardRules,
    ...doorRules,
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    exclude: { path: ['\\.test\\.ts$', '^src/web/assets/'] },
    doNotFollow: { path: 'node_modules' },
  },
};
