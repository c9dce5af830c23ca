"""One module per pane of the run screen; every pane derives from :class:`tui.panes.base.Pane` (most from its LinePane)."""
