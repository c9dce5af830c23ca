"""Model adapters: the interface the Engine calls, a scripted offline model, an OpenAI-compatible one."""
