"""The docks: each receives the controller, subscribes to its signals, and imports no other panel or dialog."""
