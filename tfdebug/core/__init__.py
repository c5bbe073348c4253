"""The Qt-free core: stage vocabulary and names, Tap, Recorder, Stepper, Plan, pass layout, display math on the device, statistics, comparisons, edits and typed errors."""
