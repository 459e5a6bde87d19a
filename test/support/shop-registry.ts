/**
 * A shop registry written apart from the samples (order lookup, logistics, a
 * refund with side effects, points, reports), for the attribution scenarios.
 * Its order lookup's examples look like a label-and-value clause
 * ("查一下我的订单 A1001"), so routing cannot lean on the examples existing
 * or not: a clause such as "订单 A1001" beside "我要退款" must be read by the
 * sentence's shape.
 */

/** Where each of the shop's agents listens. */
export interface ShopUrls {
  orders: string;
  logistics: string;
  refund: string;
  points: string;
  reports: string;
}

const ORDER_ID = `
      - key: order_id
        description: { zh: 订单号, en: order number }
        extract:
          pattern: '\\b([A-Z]\\d{4})\\b'`;

/** The registry YAML, each agent pointed at its URL. */
export function shopRegistry(urls: ShopUrls): string {
  return `version: 1
supervisor:
  memory_max_history: 5
  max_parallel: 4
  default_timeout_ms: 5000
agents:
  - id: order_lookup
    name: { zh: 订单查询, en: Order lookup }
    description: 查询订单的状态和明细。Order status and details.
    examples:
      - 查一下我的订单 A1001
      - 订单 B2002 是什么状态
      - 我的订单 C3003 付款成功了吗
      - 帮我看看订单 D4004
      - check my order A1001
      - what is the status of order B2002
    keywords: [订单, 查订单, order]
    endpoint: { url: ${urls.orders}, protocol: http-json, timeout_ms: 3000, retries: 0 }
    required_semantic_keys:${ORDER_ID}

  - id: logistics
    name: { zh: 物流跟踪, en: Parcel tracking }
    description: 包裹到哪了、什么时候送到。Where a parcel is and when it arrives.
    examples:
      - 我的快递到哪了
      - 包裹什么时候送到
      - where is my parcel
      - when will my package arrive
    keywords: [物流, 快递, 包裹, parcel, package, tracking]
    endpoint: { url: ${urls.logistics}, protocol: http-json, timeout_ms: 3000, retries: 0 }
    required_semantic_keys:${ORDER_ID}

  - id: refund
    name: { zh: 退款申请, en: Refund }
    description: 为订单申请退款。Refund requests for an order.
    side_effects: true
    examples:
      - 我要退款
      - 这个东西我不想要了，帮我退钱
      - I want a refund
      - please refund my purchase
    keywords: [退款, 退钱, refund]
    endpoint: { url: ${urls.refund}, protocol: http-json, timeout_ms: 3000, retries: 0 }
    required_semantic_keys:${ORDER_ID}
      - key: reason
        description: { zh: 退款原因, en: refund reason }
        extract:
          enum: [质量问题, 发错货, 不想要了, quality issue, wrong item, changed my mind]

  - id: points
    name: { zh: 积分查询, en: Points }
    description: 会员积分余额与明细。Loyalty points balance.
    examples:
      - 我还有多少积分
      - 积分明细给我看看
      - how many points do I have
    keywords: [积分, points]
    endpoint: { url: ${urls.points}, protocol: http-json, timeout_ms: 3000, retries: 0 }
    required_semantic_keys: []

  - id: reports
    name: { zh: 销售报表, en: Sales reports }
    description: 按月份生成销售报表。Monthly sales reports.
    examples:
      - 生成上个月的销售报表
      - 给我一份十月的报表
      - make a sales report for last month
    keywords: [报表, report]
    endpoint: { url: ${urls.reports}, protocol: http-json, timeout_ms: 3000, retries: 0 }
    required_semantic_keys: []
`;
}
