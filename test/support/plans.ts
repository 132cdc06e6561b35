// A small, complete rewind plan of a FileStreamSource, for unit tests of saved plans and change
// requests (what planRewind would return for one file rewound from position 9 to 0).
import type { Plan } from '../../src/ops/plan/index.js';

export function sourcePlan(connector: string, operation: Plan['operation'] = 'rewind'): Plan {
  const current = [{ partition: { filename: '/data/a.txt' }, offset: { position: 9 } }];
  const target = [{ partition: { filename: '/data/a.txt' }, offset: { position: 0 } }];
  return {
    operation, runOperation: operation === 'resume' ? 'rewind' : operation, connector, connectorType: 'source', clusterUrl: 'http://127.0.0.1:8083', clusterKey: 'kafka:abc',
    identity: { clusterKey: 'kafka:abc', kafkaClusterId: 'abc', name: connector, type: 'source', connectorClass: 'FileStreamSource', topics: { topic: 't' } },
    stateBefore: 'RUNNING', tasks: [], stateAfter: 'RUNNING', resumeAfter: 'auto', currentOffsets: current, targetOffsets: target,
    diff: { entries: [{ key: '{"filename":"/data/a.txt"}', partition: { filename: '/data/a.txt' }, before: { position: 9 }, after: { position: 0 }, kind: 'changed' }], counts: { changed: 1, added: 0, removed: 0, unchanged: 0 } },
    warnings: [], nothingToChange: false, forwardTargets: [], chunkSize: 10_000,
    workflow: { kind: 'rewind', file: 'rewind-connector-offsets.arazzo.yaml', workflowId: 'rewindConnectorOffsets' },
    inputs: { connectorName: connector, offsets: target, resumeAfter: 'auto' },
  };
}
