"""The window's frame: the main window and its layout memory, the input bar, the message bar, the Learn menu, the system check before Qt starts."""
