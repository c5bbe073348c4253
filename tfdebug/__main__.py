"""`python -m tfdebug` runs the same entry point as the `tfdebug` command."""

from tfdebug.cli import main

raise SystemExit(main())
