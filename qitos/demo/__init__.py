"""The bundled demo agent, driven offline by a scripted model."""
