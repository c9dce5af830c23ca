"""The bundled demo agent, driven offline by a scripted model."""

from qitos.demo.agent import TASK, DemoAgent, ReviewWritesPolicy, build_agent

__all__ = ["TASK", "DemoAgent", "ReviewWritesPolicy", "build_agent"]
