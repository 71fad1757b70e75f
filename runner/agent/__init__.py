"""The tools an AI assistant calls, with typed answers: check, reach, rules, the schema's
authoring view, runs, the suite, mutants, all within a scope of workspace roots. Two front ends
serve them: `stepsmith mcp` (runner/mcp, the SDK's wiring) and the editor's language-model
tools (server/handlers/agent_tools.py); neither imports the other."""
