"""QitOS: the agent framework core (Engine, tools, context, memory, tracing)."""
