/**
 * The three-intent travel turn the load and peer benches send: a hotel, an
 * airport transfer that waits for the hotel, and the weather, with the model
 * replies of LLM mode (the intent-and-plan call and the answer).
 */
const tomorrow = new Date(Date.now() + 86_400_000);

export const TRAVEL_TURN = {
  query: '帮我订北京的酒店，明天入住，安排明天早上7点首都机场接机，再告诉我北京明天的天气',
  /** Tomorrow's local date (the server resolves 明天 against its own clock). */
  tomorrow: `${tomorrow.getFullYear()}-${String(tomorrow.getMonth() + 1).padStart(2, '0')}-${String(tomorrow.getDate()).padStart(2, '0')}`,
} as const;

export const TRAVEL_SUMMARY = '已为您预订北京饭店（东长安街33号，每晚880元）。王师傅将于明天早上7点在首都机场接您并送往酒店。北京明天晴，最高8度，最低零下2度。';

function task(id: string, agent: string, inputs: Record<string, unknown>, dependencies: string[] = []) {
  return { task_id: id, description: `${agent} task`, assigned_agent: agent, inputs, dependencies };
}

/** The intent-and-plan reply for the travel turn (the model's JSON). */
export function travelPlanReply(): { content: Record<string, unknown> } {
  return {
    content: {
      kind: 'business',
      intent: ['hotel_agent', 'limo_agent', 'weather_agent'],
      confidence: 'high',
      reason: 'bench',
      rewritten_query: TRAVEL_TURN.query,
      user_friendly_message: '明白了！',
      task_plan: {
        sub_tasks: [
          task('task_1', 'hotel_agent', { city: '北京', check_in_date: TRAVEL_TURN.tomorrow }),
          task('task_2', 'limo_agent', { airport: '首都机场', pickup_time: '早上7点', date: TRAVEL_TURN.tomorrow }, ['task_1']),
          task('task_3', 'weather_agent', { city: '北京', date: TRAVEL_TURN.tomorrow }),
        ],
      },
    },
  };
}
