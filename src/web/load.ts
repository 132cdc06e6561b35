// The console's lazy-loading seam: one door per library only some requests need (the Kafka client
// for a sink's log positions; jose and openid-client for OIDC sign-in), so a console without them
// never loads them. test/project/lazy-seam.test.ts keeps import() in seam files like this one.
export const kafkaAdmin = () => import('../kafka/admin.js');
export const jose = () => import('jose');
export const openidClient = () => import('openid-client');
