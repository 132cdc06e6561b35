// The console's door: `offsetctl ui` starts the console through this and nothing else (the CLI
// face launches the web face; the web face never imports the CLI).
export { parseListen, startConsole, type ListenAddress, type StartOptions, type RunningConsole } from './server.js';
export type { ContextSource } from './app.js';
// The console as a service: `offsetctl ui --config` reads the file's sign-in and roles here.
export { parseServiceConfig, type ServiceConfig } from './auth/index.js';
