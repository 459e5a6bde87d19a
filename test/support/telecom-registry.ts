/**
 * A telecom registry of our own (not the repository samples): a plan change and a
 * data top-up with side effects, a bill lookup, all three keyed by the caller's
 * phone number (remembered), with an enum, a pattern and an amount key.
 */
export interface TelecomUrls {
  plan: string;
  bill: string;
  data: string;
}

export function telecomRegistry(urls: TelecomUrls): string {
  return `version: 1
supervisor:
  default_timeout_ms: 3000
agents:
  - id: plan_change
    name: { zh: 套餐变更, en: Plan change }
    description: { zh: 更换手机资费套餐, en: Switch the mobile tariff plan }
    side_effects: true
    examples: ["把我的套餐换成畅享99", "我想改套餐", "switch my plan to Unlimited 59"]
    keywords: ["套餐", "改套餐", "换套餐", "plan"]
    endpoint: { url: ${urls.plan}, protocol: http-json }
    required_semantic_keys:
      - key: phone_number
        description: { zh: 手机号码, en: phone number }
        remember: true
        extract: { type: phone }
      - key: plan_name
        description: { zh: 新套餐, en: new plan }
        extract: { enum: ["畅享99", "畅享129", "畅享199", "Unlimited 59", "Unlimited 79"] }
  - id: bill_lookup
    name: { zh: 账单查询, en: Bill lookup }
    description: { zh: 查询话费账单和消费明细, en: Look up the phone bill and charges }
    examples: ["查一下我上个月的话费", "我的账单是多少", "how much was my bill in October"]
    keywords: ["话费", "账单", "bill", "charges"]
    endpoint: { url: ${urls.bill}, protocol: http-json }
    required_semantic_keys:
      - key: phone_number
        description: { zh: 手机号码, en: phone number }
        remember: true
        extract: { type: phone }
      - key: bill_month
        description: { zh: 账单月份, en: billing month }
        extract: { pattern: "(20\\\\d\\\\d-\\\\d\\\\d)" }
  - id: data_topup
    name: { zh: 流量充值, en: Data top-up }
    description: { zh: 购买流量包, en: Buy a mobile data pack }
    side_effects: true
    examples: ["给我充10G流量", "买一个流量包", "add 5GB of data"]
    keywords: ["流量", "充流量", "data", "top up"]
    endpoint: { url: ${urls.data}, protocol: http-json }
    required_semantic_keys:
      - key: phone_number
        description: { zh: 手机号码, en: phone number }
        remember: true
        extract: { type: phone }
      - key: data_gb
        description: { zh: 流量大小, en: data amount }
        extract: { pattern: "(\\\\d+)\\\\s*(?:G|GB|g|gb)\\\\b" }
`;
}
