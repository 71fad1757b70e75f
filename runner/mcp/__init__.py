"""`stepsmith mcp`: what a human author gets from stepsmith, for an AI assistant, over the Model
Context Protocol (the official `mcp` SDK): the rules, every problem with its position and
fixes, reach, and sandboxed offline runs of steps and fixtures, as structured data.

An assistant drafts; a person reviews and switches on. So an agent never accepts a fixture
(`propose_fixture` writes only a pending change under `.stepsmith/pending/`, reviewed with
`stepsmith review` or the editor), never runs live, never sees a real credential, and every
path it names must lie inside the workspace roots.

scope.py: the roots and path containment; tools.py: the tool functions (plain use cases with
typed outputs, testable without MCP); server.py: the MCP wiring (annotations, progress,
cancellation, resources, the prompt).
"""
