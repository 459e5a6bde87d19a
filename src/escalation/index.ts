/**
 * Hand-over to a human: the negative-emotion trigger, the masked escalation
 * card and its delivery to a ticket system.
 */
export { createEmotionScorer, type EmotionScore, type EmotionScorer } from './emotion.js';
export { buildEscalationCard, summariseEscalation, type EscalationCard, type EscalationCardInput, type EscalationReason } from './escalation-card.js';
export { createTicketWebhook, type TicketWebhook, type TicketWebhookOptions } from './ticket-webhook.js';
