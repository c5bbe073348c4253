"""Drawing helpers shared by panels and widgets: colour maps, one paint per change, plain text."""
