"""Features of the window, one folder each: its widgets, its actions (menu, key, enablement) and `install`."""
