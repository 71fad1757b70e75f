// The language-model tools stepsmith offers (pure data; registered by lmTools.ts).
import { inlineCode } from './markdown';

export interface AgentToolSpec { name: string; tool: string; readOnly: boolean; confirm?: (input: Record<string, unknown>) => string }

export const AGENT_TOOLS: AgentToolSpec[] = [
  { name: 'stepsmith_check', tool: 'check', readOnly: true },
  { name: 'stepsmith_reach', tool: 'reach', readOnly: true },
  { name: 'stepsmith_explain_rule', tool: 'explain_rule', readOnly: true },
  { name: 'stepsmith_run_step', tool: 'run_step', readOnly: false,
    // the agent's input is quoted as code, whatever it holds (issue 18: Markdown injection)
    confirm: (i) => `Run step ${inlineCode(String(i.step ?? ''))} of ${inlineCode(String(i.workflow ?? ''))} once in the sandbox (offline, placeholder credentials)?` },
  { name: 'stepsmith_test', tool: 'test', readOnly: false,
    confirm: () => 'Run the selected fixtures in the sandbox (offline)?' },
  { name: 'stepsmith_propose_fixture', tool: 'propose_fixture', readOnly: false,
    confirm: (i) => `Propose fixture ${inlineCode(String(i.name ?? ''))} for step ${inlineCode(String(i.step ?? ''))} as a pending change for you to review?` },
];

/** Which tools a workspace gets: read-only ones always, the rest only when trusted. */
export function toolsFor(trusted: boolean): AgentToolSpec[] {
  return AGENT_TOOLS.filter((t) => trusted || t.readOnly);
}

