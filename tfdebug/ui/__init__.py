"""Everything Qt and pyqtgraph: the main window, its panels, actions and the stepper's Qt adapter.

PySide6 6.12.0 is excluded in pyproject.toml: on Python 3.11 it drops a reference to
None on every call of a method returning void and the interpreter aborts.
"""
