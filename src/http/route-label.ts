/**
 * The `route` label of `switchboard_http_requests_total`: the template of the
 * route a request addresses (`/v1/sessions/:session_id/stream`), read from the
 * route table, so every response is labelled alike — a handler's answer, a 400
 * from the body parser, a 401 from the key check or a 405 — and an error-rate
 * query on `/v1/chat` sees them all. A path no route has is `unmatched` (one
 * label, whatever scanners send).
 */
import { API_ROUTES } from './api-routes.js';

interface Template {
  readonly route: string;
  readonly pattern: RegExp;
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const TEMPLATES: readonly Template[] = [...new Set(API_ROUTES.map((route) => route.path))].map((route) => ({
  route,
  pattern: new RegExp(`^${route.split('/').map((part) => (part.startsWith(':') ? '[^/]+' : escape(part))).join('/')}/?$`),
}));

/** The route template `path` (without its query) matches, or `unmatched`. */
export function routeLabel(path: string): string {
  for (const template of TEMPLATES) if (template.pattern.test(path)) return template.route;
  return 'unmatched';
}
