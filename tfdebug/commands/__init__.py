"""One module per `tfdebug` subcommand; each has add_arguments(parser) and run(args) -> int."""
