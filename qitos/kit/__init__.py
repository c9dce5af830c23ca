"""Ready-made parts: compactors, memories, tool libraries."""
