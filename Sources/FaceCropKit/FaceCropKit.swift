// FaceCropKit: the top. Run/ is the main command as a short sequence, setup -> plan ->
// pipeline -> commit -> finish, with the worker (PhotoProcessor) and --check/--dry-run; CLI/ is
// the command line: the option table, parsing, --help, the man page, completions, config files,
// the subcommands' dispatch, `export` and `merge`. Imports every library target; only
// facecrop/main.swift imports it.
