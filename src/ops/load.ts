// Ops' lazy-loading seam: one door per library some operations need and most never do. The store's
// PostgreSQL driver (a Debezium source's slot, a replay's row count) and the Kafka client (positions,
// the sink pre-flight's broker checks) load only when an operation uses them.
// test/project/lazy-seam.test.ts keeps import() in seam files like this one.
export const store = () => import('../store/index.js');
export const kafkaAdmin = () => import('../kafka/admin.js');
