"""Work off the GUI thread and the GUI thread's own housekeeping: jobs, the display worker, the stepper's
Qt signals, garbage collection."""
