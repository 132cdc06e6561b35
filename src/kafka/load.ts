// The Kafka layer's lazy-loading seam: the Kafka client library (@platformatic/kafka) loads when a
// client is first made, not when a module that may talk to Kafka is imported. Loading it costs
// ~0.45 CPU-s (measured: `import('@platformatic/kafka')` 0.47 s user against 0.04 s for bare node),
// which every test file and command that imports ops paid before. One door;
// test/project/lazy-seam.test.ts keeps import() in seam files like this one.
export const kafkaClient = () => import('@platformatic/kafka');
