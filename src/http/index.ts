/** The HTTP layer: the express app, the server wrapper and the error mapping. */
export { createApp, type AppOptions } from './app.js';
export { startServer, type RunningServer, type StartServerOptions } from './server.js';
export { createStreamTracker, type StreamTracker } from './stream-tracker.js';
export { createErrorHandler, mapError, type ErrorBody } from './error-handler.js';
export type { ChatAbortReason } from './chat-route.js';
