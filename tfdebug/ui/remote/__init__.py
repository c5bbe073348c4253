"""The window's side of a remote session: File ▸ Connect to Server…, Reconnect, and the display path
that asks the server (tfdebug.remote.session.RemoteSession) instead of reading tensors here."""
