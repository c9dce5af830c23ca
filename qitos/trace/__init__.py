"""Run traces: the event vocabulary, the writer and the lazy reader."""
