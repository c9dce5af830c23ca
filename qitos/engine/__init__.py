"""The execution kernel: Engine, AsyncEngine, runtime budgets, lifecycle policies and hooks."""
