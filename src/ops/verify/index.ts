// The verify room: verification by data after a change (`--verify <duration>`): the connector
// runs again and moves — its tasks RUNNING, its offsets leaving what the change wrote, a Debezium
// source's slot active with confirmed_flush_lsn moving. Reads only; a face decides to roll back.
export { watchMoving, type MovingRequest, type MovingResult } from './moving.js';
export { markOutputs, type RecordMark } from './records.js';
