"""Core contracts: actions, decisions, state, tasks, tools, memory, context and request views."""
