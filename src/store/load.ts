// The store's lazy-loading seam: the team store's backend (PostgreSQL, node-postgres) loads only
// when a team store is opened or a source database is read, never for a SQLite command. One door;
// test/project/lazy-seam.test.ts keeps import() in seam files like this one.
export const postgresBackend = () => import('./postgres/index.js');
