/**
 * A clinic registry of our own (not the repository samples): appointments
 * (http-json, `${VAR}` header, three keys of different extract types),
 * lab reports (http-sse, pattern key), billing (depends on appointments,
 * email key), triage and a disabled pharmacy.
 */

export interface ClinicUrls {
  appointment: string;
  report: string;
  billing: string;
  triage: string;
  pharmacy: string;
}

export const CLINIC_AGENT_IDS = ['appointment_agent', 'report_agent', 'billing_agent', 'triage_agent', 'pharmacy_agent'] as const;

/** The token the appointment agent's header takes from the environment. */
export const CLINIC_TOKEN = 'tok-9f8e7d6c5b4a-SECRET';

export function clinicRegistry(urls: ClinicUrls, options: { timeoutMs?: number } = {}): string {
  const timeout = options.timeoutMs ?? 800;
  return `version: 1
supervisor:
  memory_max_history: 5
  max_parallel: 4
  default_timeout_ms: 3000
  escalate_after_failures: 2
  # The protocol checks feed one agent many failing replies in a row on purpose; its breaker would
  # rightly stop calling it (circuit breakers have their own scenario), so it is off here.
  circuit_breaker: { enabled: false }
widgets:
  department: department_picker
  report_id: report_scanner
agents:
  - id: appointment_agent
    name: 门诊挂号
    description: 预约门诊挂号。Book an outpatient appointment.
    examples: ["帮我挂明天内科的号，电话13800138000", "book an internal medicine appointment"]
    keywords: ["挂号", "预约门诊", "appointment"]
    endpoint:
      url: ${urls.appointment}
      protocol: http-json
      timeout_ms: ${timeout}
      retries: 1
      headers:
        Authorization: "Bearer \${CLINIC_TOKEN}"
        X-Clinic: north
    required_semantic_keys:
      - key: department
        description: 就诊科室
        extract: { enum: ["内科", "外科", "儿科", "internal medicine", "pediatrics"] }
      - key: visit_date
        description: 就诊日期
        extract: { type: date }
      - key: phone
        description: 联系电话
        widget: phone_input
        extract: { type: phone }
    output_schema:
      type: object
      required: [appointment_no]
      properties:
        appointment_no: { type: string }
  - id: report_agent
    name: 检查报告
    description: 查询化验和影像检查报告。Lab and imaging reports.
    examples: ["查一下报告 RPT-123456", "show my lab report RPT-654321"]
    keywords: ["报告", "化验", "lab report"]
    endpoint:
      url: ${urls.report}
      protocol: http-sse
      timeout_ms: ${timeout}
      retries: 0
    required_semantic_keys:
      - key: report_id
        description: 报告编号
        extract: { pattern: "RPT-\\\\d{6}" }
  - id: billing_agent
    name: 门诊缴费
    description: 缴纳挂号费用并开具电子发票。Pay the appointment fee.
    examples: ["挂完号帮我缴费，发票发到 a@example.com"]
    keywords: ["缴费", "付款", "pay the fee"]
    depends_on: [appointment_agent]
    endpoint:
      url: ${urls.billing}
      protocol: http-json
      timeout_ms: ${timeout}
      retries: 0
    required_semantic_keys:
      - key: email
        description: 发票邮箱
        extract: { type: email }
  - id: triage_agent
    name: 智能分诊
    description: 根据症状推荐科室。Symptom triage.
    examples: ["我头疼该看什么科，帮我分诊"]
    keywords: ["分诊", "triage"]
    endpoint:
      url: ${urls.triage}
      protocol: http-json
      timeout_ms: ${timeout}
      retries: 1
  - id: pharmacy_agent
    name: 药房配药
    description: 处方配药与取药。Pharmacy.
    enabled: false
    keywords: ["配药", "取药", "pharmacy"]
    endpoint:
      url: ${urls.pharmacy}
      protocol: http-json
`;
}
