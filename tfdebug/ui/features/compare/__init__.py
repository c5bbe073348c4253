"""Compare: File ▸ Compare With… (Ctrl+Shift+D) compares two passes stage by stage in the Compare dock."""
