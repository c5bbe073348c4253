"""The action registry (menus, toolbar, shortcuts from one place) and the tools actions drive: snapshots, exports."""
