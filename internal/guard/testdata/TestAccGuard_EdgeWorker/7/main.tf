# The environment is retired: the CLI deletes what is left, none of it the Worker. (Ending with
# an empty state also lets the harness finish: its state shim cannot read module state.)
