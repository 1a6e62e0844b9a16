# The platform is retired: the CLI deletes everything. (Ending with an empty state also lets the
# harness finish: its state shim cannot read module state.)
