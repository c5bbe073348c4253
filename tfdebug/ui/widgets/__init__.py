"""Parts that panels are built from: axes, the token strip, attention rows, cache views, the prediction list, breakpoint menus."""
