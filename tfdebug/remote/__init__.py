"""Remote sessions: the model and its stepper run in `tfdebug serve` (Qt-free); a window attaches.

`protocol` is the typed, versioned wire format both sides share (JSON headers plus raw
array buffers over ZeroMQ, every frame bounded and validated); `display` the display seam
(slices, stats and head thumbnails of a stage, computed where its tensor lives); `server`
and `handlers` the serving side; `client` and `session` the attaching side, an object a
window treats like a local DebugSession.
"""
