// `offsetctl replay` applied: one journaled run of workflows/replay-table.arazzo.yaml (send the
// execute-snapshot signal to the connector's Kafka signal topic, receive the first re-read row
// from the table's topic) under the connector's lock, with its audit entries. No offset changes,
// so no snapshot is taken (the run says so). After the workflow, the re-read rows are counted on
// the table's topic until it has been quiet for a while, so the account says how many arrived.
import { join } from 'node:path';
import {
  assertValid, loadDocumentFile, loadSources, runWorkflow, validateArazzo, type MessageEndpoint, type MessageTransport, type RunEvent,
} from '../../arazzo/index.js';
import { redactValue } from '../../http/redact.js';
import { createKafkaTransport } from '../../kafka/messaging.js';
import type { KafkaSettings } from '../../kafka/connection.js';
import { runAudited, type AuditScope } from '../audit/index.js';
import type { OpsContext } from '../context.js';
import { OpsError } from '../errors.js';
import { WORKFLOWS_DIR } from '../workflows/index.js';
import type { ReplayPlan } from './plan-replay.js';

export const REPLAY_WORKFLOW = {
  file: join(WORKFLOWS_DIR, 'replay-table.arazzo.yaml'), workflowId: 'replay-table', source: 'debezium', server: 'connectorKafka',
};

export interface ReplayOptions {
  /** Where the signal topic and the table's topic are (the face: --bootstrap, the context's, or the connector's signal.kafka.bootstrap.servers). */
  bootstrap: string[];
  /** Security for that cluster (never a bootstrap: that is `bootstrap`). */
  kafka?: Omit<KafkaSettings, 'bootstrap'>;
  /** How long the table's topic must be quiet before the count of re-read rows ends (default 5 s). */
  quietMs?: number;
  /** The longest the count goes on after the first row (default 120 s). */
  countLimitMs?: number;
  onEvent?: (event: RunEvent) => void;
  signal?: AbortSignal;
}

export interface ReplayOutcome {
  operation: 'replay';
  connector: string;
  clusterUrl: string;
  status: 'succeeded' | 'failed' | 'dry-run';
  runId?: string;
  table: string;
  filter?: string;
  tableTopic: string;
  signalTopic: string;
  /** Where the signal went (partition/offset). */
  sent?: { partition: number; offset: string };
  /** Rows read again (op=r) seen on the table's topic since the run started, until it was quiet. */
  rowsSeen?: number;
  message: string;
  warnings: string[];
}

export function dryRunReplay(plan: ReplayPlan): ReplayOutcome {
  return {
    ...base(plan), status: 'dry-run', warnings: plan.warnings,
    message:
      `dry run: would send execute-snapshot for ${plan.table}${plan.filter ? ` where ${plan.filter}` : ''} `
      + `to ${plan.signalTopic} and wait for the rows on ${plan.tableTopic}; nothing was sent`,
  };
}

/** The replay as a journaled, audited run; a failure of the workflow is an outcome (status failed), not a throw. */
export async function applyReplay(ctx: OpsContext, plan: ReplayPlan, scope: AuditScope, options: ReplayOptions): Promise<ReplayOutcome> {
  if (options.bootstrap.length === 0) {
    throw new OpsError('E_USAGE',
      `no Kafka bootstrap servers for ${plan.signalTopic}: ${plan.connector} names none (signal.kafka.bootstrap.servers); `
      + `pass --bootstrap or set the context's bootstrap; nothing was changed`, { field: 'bootstrap' });
  }
  const what = {
    action: 'replay', connector: plan.connector, clusterUrl: plan.clusterUrl, clusterKey: plan.clusterKey,
    message: `incremental snapshot of ${plan.table}${plan.filter ? ` where ${plan.filter}` : ''} through ${plan.signalTopic}`,
  };
  return runAudited(ctx, scope, what, async (started) => {
    const inputs = { signalTopic: plan.signalTopic, signalKey: plan.signalKey, tableTopic: plan.tableTopic, signal: plan.signal };
    const doc = await loadDocumentFile(REPLAY_WORKFLOW.file);
    assertValid(doc, validateArazzo(doc));
    const registry = await loadSources(doc, { servers: { byName: { [REPLAY_WORKFLOW.source]: options.bootstrap.join(',') } } });
    const run = await ctx.store.beginRun({
      clusterUrl: plan.clusterUrl, clusterKey: plan.clusterKey, connector: plan.connector, operation: 'replay',
      workflowFile: REPLAY_WORKFLOW.file, workflowId: REPLAY_WORKFLOW.workflowId, inputs,
      context: { connectorType: 'source', noSnapshot: 'a replay changes no offset: nothing to snapshot or roll back' },
    });
    started(run.id);
    const messages = createKafkaTransport({ clientId: 'offsetctl-replay', ...(options.kafka ? { settings: options.kafka } : {}) });
    try {
      const endpoint: MessageEndpoint = {
        source: REPLAY_WORKFLOW.source, server: REPLAY_WORKFLOW.server, protocol: 'kafka', bootstrap: options.bootstrap, address: plan.tableTopic,
      };
      const from = await messages.mark(endpoint);
      const result = await runWorkflow({
        registry, workflowId: REPLAY_WORKFLOW.workflowId, inputs, http: ctx.http, messages, ...(options.signal ? { signal: options.signal } : {}),
        onEvent: async (event) => {
          await journal(ctx, run.id, event);
          options.onEvent?.(event);
        },
      });
      const sendStep = result.steps.find((s) => s.stepId === 'sendSignal');
      const where = sendStep?.message;
      const sent = where?.partition !== undefined && where.offset !== undefined ? { partition: where.partition, offset: where.offset } : undefined;
      const outcome: ReplayOutcome = { ...base(plan), runId: run.id, status: 'failed', warnings: [...plan.warnings], message: '', ...(sent ? { sent } : {}) };
      if (result.status !== 'passed') {
        const failed = result.steps.find((s) => s.status === 'failed');
        const why = failed?.error?.message ?? result.error?.message ?? 'the workflow failed';
        outcome.message = failed?.stepId === 'receiveRow'
          ?
            `replay of ${plan.table} on ${plan.connector}: the signal was sent `
            + `(${plan.signalTopic}${sent ? ` partition ${sent.partition} offset ${sent.offset}` : ''}) `
            + `but no re-read row reached ${plan.tableTopic} in time: ${why}. Look at the connector's log (a filter `
            + `that matches no row, a table without a primary key, or no signal table for Debezium's watermarks). No `
            + `offset was changed.`
          : `replay of ${plan.table} on ${plan.connector} failed before the signal was sent: ${why}. Nothing was sent and no offset was changed.`;
      } else {
        const rows = await countRows(messages, endpoint, from, options);
        outcome.status = 'succeeded';
        outcome.rowsSeen = rows;
        outcome.message =
          `replay of ${plan.table}${plan.filter ? ` where ${plan.filter}` : ''} on ${plan.connector} done: the `
          + `signal reached ${plan.signalTopic}` +
          `${sent ? ` (partition ${sent.partition} offset ${sent.offset})` : ''} and ${rows} row(s) read again `
            + `(op=r) arrived on ${plan.tableTopic} until it was quiet for ${(options.quietMs ?? 5000) / 1000} s. No `
            + `offset was changed (so no snapshot was taken); the connector kept streaming.`;
      }
      const status = outcome.status === 'succeeded' ? 'succeeded' : 'failed';
      await ctx.store.finishRun(run.id, { status, message: outcome.message, connectorState: 'RUNNING' });
      return outcome;
    } catch (err) {
      const message = `replay of ${plan.table} failed: ${(err as Error).message}; no offset was changed`;
      await ctx.store.finishRun(run.id, { status: 'failed', message }).catch(() => undefined);
      throw err;
    } finally {
      await messages.close();
    }
  });
}

function base(plan: ReplayPlan): Pick<ReplayOutcome, 'operation' | 'connector' | 'clusterUrl' | 'table' | 'filter' | 'tableTopic' | 'signalTopic'> {
  return {
    operation: 'replay', connector: plan.connector, clusterUrl: plan.clusterUrl, table: plan.table,
    ...(plan.filter ? { filter: plan.filter } : {}), tableTopic: plan.tableTopic, signalTopic: plan.signalTopic,
  };
}

/** Every event of the run into the journal (masked), as the runs of changes are; steps too, for `runs show`. */
async function journal(ctx: OpsContext, runId: string, event: RunEvent): Promise<void> {
  const { type, at, ...rest } = event as RunEvent & Record<string, unknown>;
  const stepId = typeof rest['stepId'] === 'string' ? rest['stepId'] : undefined;
  await ctx.store.recordEvent(runId, { at, type, ...(stepId ? { stepId } : {}), detail: redactValue(rest) as Record<string, unknown> });
  if (event.type === 'step.finished') {
    await ctx.store.recordStep(runId, {
      workflowId: event.workflowId, stepId: event.stepId, status: event.status, outputs: redactValue(event.outputs) as Record<string, unknown>,
      ...(event.error ? { error: { code: event.error.code, message: event.error.message } } : {}), finishedAt: at,
    });
  }
}

/** Rows read by the snapshot (op "r") on the table's topic since `from`, until none came for quietMs. */
async function countRows(messages: MessageTransport, endpoint: MessageEndpoint, from: unknown, options: ReplayOptions): Promise<number> {
  const quietMs = options.quietMs ?? 5000;
  const stop = new AbortController();
  const limit = setTimeout(() => stop.abort(), options.countLimitMs ?? 120_000);
  let quiet = setTimeout(() => stop.abort(), quietMs);
  let rows = 0;
  try {
    for await (const record of messages.receive(endpoint, from, stop.signal)) {
      if (record.value && /"op"\s*:\s*"r"/.test(record.value.toString('utf8'))) {
        rows++;
        clearTimeout(quiet);
        quiet = setTimeout(() => stop.abort(), quietMs);
      }
    }
  } finally {
    clearTimeout(limit);
    clearTimeout(quiet);
  }
  return rows;
}
